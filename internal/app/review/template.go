package review

import (
	"embed"
	"html/template"
	"io"
)

// The two pages, the split review (page.html) and the merge review
// (merge.html), share the layout (layout.html: head, header, data and
// scripts), the style (page.css) and the scripts' common part (common.js:
// data, elements, keys, the header's lines, the export); each page
// defines its help text and what it adds (blocks "help", "style",
// "after"). html/template escapes every value for where it lands: the
// title as text, the data as JSON in its script element.

//go:embed layout.html page.html merge.html
var templates embed.FS

//go:embed page.css
var pageCSS string

//go:embed common.js
var commonJS string

var (
	splitPage = template.Must(template.ParseFS(templates, "layout.html", "page.html"))
	mergePage = template.Must(template.ParseFS(templates, "layout.html", "merge.html"))
)

// pageView is what the layout shows: the title, the page's data (written
// as JSON), and its style and scripts (common.js, then the page's), which
// are the package's own files.
type pageView struct {
	Title      string
	Data       any
	CSS        template.CSS
	Common, JS template.JS
}

// render writes page t with the title, data and script js to w.
func render(w io.Writer, t *template.Template, title string, data any, js string) error {
	return t.ExecuteTemplate(w, "layout.html", pageView{Title: title, Data: data, CSS: template.CSS(pageCSS), Common: template.JS(commonJS), JS: template.JS(js)})
}
