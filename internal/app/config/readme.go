package config

//go:generate go run gen_readme.go

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// docTables are the tables of docs/configuration.md made from the
// settings, by the name of their markers.
var docTables = map[string]func() string{
	"score":   scoreTable,
	"written": writtenTable,
	"keys":    keysTable,
}

// DocTables returns doc with its tables of settings made anew from the
// table: each between a line "<!-- settings:NAME -->" and a line
// "<!-- /settings:NAME -->", where NAME is score (score's flags), written
// (the properties sync writes) or keys (every setting). go generate writes
// them into docs/configuration.md.
func DocTables(doc string) (string, error) {
	for name, table := range docTables {
		begin, end := "<!-- settings:"+name+" -->\n", "<!-- /settings:"+name+" -->"
		i := strings.Index(doc, begin)
		j := strings.Index(doc, end)
		if i < 0 || j < i || strings.Count(doc, begin) != 1 {
			return "", fmt.Errorf("docs/configuration.md: want one %q, then %q", strings.TrimSpace(begin), end)
		}
		doc = doc[:i+len(begin)] + table() + doc[j:]
	}
	return doc, nil
}

// scoreTable is the table of score's flags, by name.
func scoreTable() string {
	type row struct{ name, line string }
	var rows []row
	for _, s := range settings {
		f, ok := s.FlagOn(CmdScore)
		if !ok {
			continue
		}
		doc := s.Doc
		if doc == "" {
			doc = f.Help
		}
		rows = append(rows, row{f.Name, cells("`--"+f.Name+"`", s.docDefault(), doc)})
	}
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.name, b.name) })
	var sb strings.Builder
	sb.WriteString("| flag | default | meaning |\n|---|---|---|\n")
	for _, r := range rows {
		sb.WriteString(r.line)
	}
	return sb.String()
}

// writtenTable is the table of the node properties sync writes.
func writtenTable() string {
	var sb strings.Builder
	sb.WriteString("| property (key) | default | value |\n|---|---|---|\n")
	for _, s := range settings {
		if strings.HasPrefix(s.Key, "write.") && strings.HasSuffix(s.Key, "property") {
			sb.WriteString(cells("`"+s.Key+"`", s.docDefault(), s.doc()))
		}
	}
	return sb.String()
}

// keysTable is the table of every setting, by key: its variable, its
// flags and their commands, its default, what it does.
func keysTable() string {
	sorted := slices.Clone(settings)
	slices.SortFunc(sorted, func(a, b Setting) int { return strings.Compare(a.Key, b.Key) })
	var sb strings.Builder
	sb.WriteString("| key | environment variable | flag (commands) | default | meaning |\n|---|---|---|---|---|\n")
	for _, s := range sorted {
		key, env := "`"+s.Key+"`", "`"+EnvName(s.Key)+"`"
		for _, a := range s.Aliases {
			key += " (or `" + a + "`)"
			env += " (or `" + EnvName(a) + "`)"
		}
		if s.NotInFile != "" {
			key += " (not in a file)"
		}
		var names []string // the flags' names, and their commands
		on := map[string]Commands{}
		for _, f := range s.Flags {
			if on[f.Name] == 0 {
				names = append(names, f.Name)
			}
			on[f.Name] |= f.On
		}
		var flags []string
		for _, n := range names {
			flags = append(flags, "`--"+n+"` ("+on[n].String()+")")
		}
		if len(flags) == 0 {
			flags = []string{"none"}
		}
		sb.WriteString(cells(key, env, strings.Join(flags, ", "), s.docDefault(), s.doc()))
	}
	return sb.String()
}

// doc is what the docs say the setting does.
func (s *Setting) doc() string {
	if s.Doc != "" {
		return s.Doc
	}
	return s.Help
}

// docDefault is the default as the docs say it.
func (s *Setting) docDefault() string {
	if s.DocDefault != "" {
		return s.DocDefault
	}
	switch d := s.Default.(type) {
	case string:
		if d == "" {
			return "`\"\"`"
		}
		return "`" + d + "`"
	case []string:
		return "`[" + strings.Join(d, ", ") + "]`"
	case bool:
		return "`" + strconv.FormatBool(d) + "`"
	case float64:
		return "`" + strconv.FormatFloat(d, 'g', -1, 64) + "`"
	}
	return fmt.Sprintf("`%v`", s.Default)
}

// cells writes a row of a Markdown table, its cells' bars escaped.
func cells(cs ...string) string {
	for i, c := range cs {
		cs[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return "| " + strings.Join(cs, " | ") + " |\n"
}
