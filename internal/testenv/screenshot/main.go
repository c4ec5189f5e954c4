// Command screenshot makes the README's picture of the review page,
// docs/review.png, from the current build. Run it from the repository's
// root:
//
//	go run ./internal/testenv/screenshot
//
// It builds fondue-neo4j (or takes -binary), writes the page of
//
//	fondue-neo4j review testdata/lesmis.edges --names testdata/lesmis.names --top 6
//
// opens it in headless Chromium ($TESTENV_CHROMIUM, else a chromium on PATH,
// else Debian's chromium package, installed once per machine as the review
// page's tests do), takes the decisions the README's caption describes (the
// first node accepted as proposed, the second accepted after dragging the
// first neighbour of its second group into its first, the third rejected,
// the first neighbour of the fourth moved to its next group by a click,
// undecided) and saves the first four nodes, at 0.7 scale.
//
// The PNG carries the command and review.PageDigest of the page it shows
// (tEXt chunks review.ScreenshotCommandKey and review.ScreenshotPageKey).
// TestReadmeScreenshotIsCurrent (cmd/fondue-neo4j) runs that command with
// the code under test and fails when the page differs: a change of the
// scores, the splitter or the page itself. Run this program again then.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/review"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/browser"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/reviewtest"
)

// Command is the review command whose page the screenshot shows, without
// its output file; paths are relative to the repository's root.
var Command = []string{"review", "testdata/lesmis.edges", "--names", "testdata/lesmis.names", "--top", "6"}

func main() {
	out := flag.String("out", "docs/review.png", "the PNG file to write")
	binary := flag.String("binary", "", "the fondue-neo4j binary to run (default: build ./cmd/fondue-neo4j)")
	flag.Parse()
	r := &runner{}
	defer r.done()
	if _, err := os.Stat("go.mod"); err != nil {
		r.Fatalf("run it from the repository's root (go run ./internal/testenv/screenshot): %v", err)
	}
	tmp := r.TempDir()
	bin := *binary
	if bin == "" {
		bin = filepath.Join(tmp, "fondue-neo4j")
		r.run("go", "build", "-o", bin, "./cmd/fondue-neo4j")
	}
	page := filepath.Join(tmp, "review.html")
	r.run(bin, append(append([]string{}, Command...), "--output-file", page)...)
	html, err := os.ReadFile(page)
	if err != nil {
		r.Fatal(err)
	}
	digest, err := review.PageDigest(html)
	if err != nil {
		r.Fatal(err)
	}
	groups := pageGroups(r, html)
	if len(groups) < 4 || len(groups[1]) < 2 {
		r.Fatalf("the page has %d nodes and its second %d groups: the caption needs four nodes, the second with two groups or more", len(groups), len(groups[1]))
	}

	s := reviewtest.Open(r)
	abs, err := filepath.Abs(page)
	if err != nil {
		r.Fatal(err)
	}
	s.Load(abs)
	s.Decide(1, "accept")
	s.DragToGroup(2, groups[1][1][0], 0)
	s.Decide(2, "accept")
	s.Decide(3, "reject")
	s.MoveToNextGroup(4, groups[3][0][0])
	// Back to the top, where the page's header sticks, then the first four
	// nodes.
	var bottom float64
	s.Eval(`new Promise(done => { window.scrollTo(0, 0); requestAnimationFrame(() => requestAnimationFrame(() => done(
		document.querySelector('section[data-rank="4"]').getBoundingClientRect().bottom + window.scrollY + 12))) })`, &bottom)
	shot, err := s.Page.Screenshot(s.Ctx, &browser.Clip{Width: 1400, Height: bottom, Scale: 0.7})
	if err != nil {
		r.Fatal(err)
	}
	shot, err = review.WithPNGText(shot, review.ScreenshotCommandKey, strings.Join(Command, " "), review.ScreenshotPageKey, digest)
	if err != nil {
		r.Fatal(err)
	}
	if err := os.WriteFile(*out, shot, 0o644); err != nil {
		r.Fatal(err)
	}
	fmt.Printf("wrote %s: the page of \"fondue-neo4j %s\" (%s)\n", *out, strings.Join(Command, " "), digest)
}

// pageGroups returns each node's groups (indices of its neighbours) from
// the page's data.
func pageGroups(r *runner, html []byte) [][][]int {
	const open = `<script type="application/json" id="fondue-data">`
	k := bytes.Index(html, []byte(open))
	if k < 0 {
		r.Fatal("the page has no data")
	}
	var data struct {
		Nodes []struct {
			Groups [][]int `json:"groups"`
		} `json:"nodes"`
	}
	if err := json.NewDecoder(bytes.NewReader(html[k+len(open):])).Decode(&data); err != nil {
		r.Fatal(err)
	}
	var out [][][]int
	for _, n := range data.Nodes {
		out = append(out, n.Groups)
	}
	return out
}

// runner stands in for a test (reviewtest.TB): a failure ends the program
// with a message, after the cleanups.
type runner struct {
	cleanups []func()
}

func (r *runner) Helper()                           {}
func (r *runner) Cleanup(f func())                  { r.cleanups = append(r.cleanups, f) }
func (r *runner) Errorf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *runner) Fatal(args ...any)                 { r.fail(fmt.Sprint(args...)) }
func (r *runner) Fatalf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *runner) Logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "screenshot: "+format+"\n", args...)
}

func (r *runner) TempDir() string {
	d, err := os.MkdirTemp("", "fondue-screenshot-")
	if err != nil {
		r.Fatal(err)
	}
	r.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func (r *runner) done() {
	for k := len(r.cleanups) - 1; k >= 0; k-- {
		r.cleanups[k]()
	}
	r.cleanups = nil
}

func (r *runner) fail(msg string) {
	fmt.Fprintln(os.Stderr, "screenshot: "+msg)
	r.done()
	os.Exit(1)
}

// run runs a command, its output on stderr.
func (r *runner) run(name string, args ...string) {
	cmd := exec.CommandContext(context.Background(), name, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		r.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
}
