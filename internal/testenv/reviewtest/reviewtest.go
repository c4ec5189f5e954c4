// Package reviewtest drives a review page (package review) in headless
// Chromium for tests: open the page, read what is drawn, accept, reject or
// edit a node's split as a person would (clicks and drags), and export the
// approved plan. The review package's own tests and the CLI's Neo4j tests
// (from a dry run to sync --split --plan) share it, and so does the program
// that makes the README's screenshot (internal/testenv/screenshot).
package reviewtest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/browser"
)

// TB is the part of testing.TB a Session uses: a test's *testing.T, or a
// program's stand-in for one.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	TempDir() string
}

// Session is a headless Chromium with one page; failures end the test.
type Session struct {
	T       TB
	Ctx     context.Context
	Browser *browser.Browser
	Page    *browser.Page
	dl      string
}

// Open starts Chromium (browser.Ensure installs it on a machine without
// one) with a 1400x2400 page that may download files.
func Open(t TB) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a first run may install Chromium
	t.Cleanup(cancel)
	path, err := browser.Ensure(ctx, t.Logf)
	if err != nil {
		t.Fatalf("the review page is tested in a real browser: %v", err)
	}
	b, err := browser.Start(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	p, err := b.NewPage(ctx, 1400, 2400)
	if err != nil {
		t.Fatal(err)
	}
	dl := t.TempDir()
	if err := b.AllowDownloads(ctx, dl); err != nil {
		t.Fatal(err)
	}
	return &Session{T: t, Ctx: ctx, Browser: b, Page: p, dl: dl}
}

// Load opens a review page from disk and waits for its script to finish
// (a script error would leave the page half drawn: the test fails).
func (s *Session) Load(path string) {
	s.T.Helper()
	if err := s.Page.Navigate(s.Ctx, "file://"+path); err != nil {
		s.T.Fatal(err)
	}
	var ready bool
	if err := s.Page.Eval(s.Ctx, `!!(window.fondueReview && window.fondueReview.ready)`, &ready); err != nil || !ready {
		s.T.Fatalf("the page's script did not finish: %v", err)
	}
}

// Eval evaluates a JavaScript expression into out (JSON-decoded).
func (s *Session) Eval(expr string, out any) {
	s.T.Helper()
	if err := s.Page.Eval(s.Ctx, expr, out); err != nil {
		s.T.Fatal(err)
	}
}

// Click clicks the element a CSS selector finds, with the mouse.
func (s *Session) Click(sel string) {
	s.T.Helper()
	if err := s.Page.Click(s.Ctx, sel); err != nil {
		s.T.Fatal(err)
	}
}

// Drag drags one element onto another, with the mouse.
func (s *Session) Drag(from, to string) {
	s.T.Helper()
	if err := s.Page.Drag(s.Ctx, from, to); err != nil {
		s.T.Fatal(err)
	}
}

// Attr returns an attribute of the element a CSS selector finds.
func (s *Session) Attr(sel, name string) string {
	s.T.Helper()
	var v string
	q, _ := json.Marshal(sel)
	n, _ := json.Marshal(name)
	s.Eval(fmt.Sprintf(`document.querySelector(%s).getAttribute(%s)`, q, n), &v)
	return v
}

// Node is the CSS selector of the node ranked rank (1: the first shown).
func Node(rank int) string { return fmt.Sprintf(`section[data-rank="%d"]`, rank) }

// Decide clicks a node's "accept", "reject" or "reset" button.
func (s *Session) Decide(rank int, action string) {
	s.T.Helper()
	s.Click(fmt.Sprintf(`%s button[data-action="%s"]`, Node(rank), action))
}

// Decision is a node's decision as the page shows it: accept, reject or
// undecided.
func (s *Session) Decision(rank int) string {
	s.T.Helper()
	return s.Attr(Node(rank), "data-decision")
}

// MoveToNextGroup clicks neighbour nb (its index among the node's
// neighbours) in the group lists: it moves to the next group.
func (s *Session) MoveToNextGroup(rank, nb int) {
	s.T.Helper()
	s.Click(fmt.Sprintf(`%s .chip[data-nb="%d"]`, Node(rank), nb))
}

// DragToGroup drags neighbour nb, on the drawing, onto group g of the
// lists (0, 1, ...; -1: "new group").
func (s *Session) DragToGroup(rank, nb, g int) {
	s.T.Helper()
	drop := fmt.Sprint(g)
	if g < 0 {
		drop = "new"
	}
	s.Drag(fmt.Sprintf(`%s svg .nb[data-nb="%d"]`, Node(rank), nb), fmt.Sprintf(`%s .group[data-drop="%s"]`, Node(rank), drop))
}

// Drawn is what the page draws for one node.
type Drawn struct {
	Key, Name string
	// Circles: neighbours drawn; Links: links between them drawn; Chips:
	// neighbours in the group lists; Groups: groups listed.
	Circles, Links, Chips, Groups int
	Decision                      string
}

// Drawing returns what the page draws, node by node.
func (s *Session) Drawing() []Drawn {
	s.T.Helper()
	var out []Drawn
	s.Eval(`Array.from(document.querySelectorAll("section.node")).map(s => ({Key: s.dataset.key,
		Name: s.querySelector("h2 .name").textContent, Circles: s.querySelectorAll("svg .nb circle").length,
		Links: s.querySelectorAll("svg path").length, Chips: s.querySelectorAll(".chip").length,
		Groups: s.querySelectorAll(".group:not(.new)").length, Decision: s.dataset.decision}))`, &out)
	return out
}

// Export clicks "Export approved plan" and returns the downloaded file.
func (s *Session) Export() []byte {
	s.T.Helper()
	data, name, err := s.Browser.Download(s.Ctx, s.dl, func() error { return s.Page.Click(s.Ctx, "#export") })
	if err != nil {
		s.T.Fatal(err)
	}
	if name != "fondue-approved-plan.json" {
		s.T.Errorf("download named %q", name)
	}
	return data
}
