package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's first command prints what the README shows: the shortened
// table under "(shortened:)" has the same rows, columns and groups as the
// command's output, a group ending in ",..." being a prefix of the real one.
// It shows a terminal's output, the column names first: piped, the command
// prints the same rows without them (the README says so), unless
// --print-header.
func TestReadmeFirstCommandOutput(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\\(shortened:\\)\\s*```\\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no shortened output of the first command")
	}
	want := strings.Split(strings.TrimSpace(string(m[1])), "\n")
	code, out, stderr := runCLI(t, "", "score", "../../testdata/lesmis.edges", "--names", "../../testdata/lesmis.names", "--split", "--top", "3", "--print-header")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := strings.Split(strings.TrimSpace(out), "\n")
	code, piped, stderr := runCLI(t, "", "score", "../../testdata/lesmis.edges", "--names", "../../testdata/lesmis.names", "--split", "--top", "3")
	if code != 0 || len(got) < 2 || piped != strings.Join(got[1:], "\n")+"\n" {
		t.Fatalf("piped without --print-header: exit %d, %q, want the rows without the header %q (%s)", code, piped, got[0], stderr)
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, the README shows %d:\n%s", len(got), len(want), out)
	}
	for k := range want {
		w, g := strings.Fields(want[k]), strings.Split(got[k], "\t")
		if len(w) != len(g) {
			t.Fatalf("line %d: %d columns, the README shows %d:\n%s\n%s", k, len(g), len(w), got[k], want[k])
		}
		for c := range w {
			if c == len(w)-1 && k > 0 { // the split: groups, shortened with ",..."
				wg, gg := strings.Split(w[c], "|"), strings.Split(g[c], "|")
				if len(wg) != len(gg) {
					t.Fatalf("line %d: %d groups, the README shows %d", k, len(gg), len(wg))
				}
				for q := range wg {
					if p, ok := strings.CutSuffix(wg[q], ",..."); ok && strings.HasPrefix(gg[q], p+",") || wg[q] == gg[q] {
						continue
					}
					t.Fatalf("line %d group %d: %q, the README shows %q", k, q, gg[q], wg[q])
				}
				continue
			}
			if w[c] != g[c] {
				t.Fatalf("line %d column %d: %q, the README shows %q", k, c, g[c], w[c])
			}
		}
	}
}
