package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// --splitter, --split-top and --split-min-ambiguity do something only with
// --split: without it, score and sync refuse them with one sentence (exit
// 2, before any work) instead of ignoring them. In a configuration file
// they are left alone (one file serves runs with and without --split).
func TestSplitFlagsNeedSplit(t *testing.T) {
	for _, cmd := range [][]string{{"score", lesmis, "--top", "2"}, {"sync"}} {
		for _, flag := range [][]string{{"--splitter", "mcl"}, {"--split-top", "3"}, {"--split-min-ambiguity", "0.9"}} {
			for _, off := range [][]string{nil, {"--split=false"}} {
				args := append(append(append([]string{}, cmd...), flag...), off...)
				code, out, stderr := runCLI(t, "", args...)
				want := flag[0] + " " + flag[1] + " does nothing without --split: add --split"
				if code != exitUsage || out != "" || !strings.Contains(stderr, want) {
					t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, out, stderr, want)
				}
				wantOneLine(t, strings.Join(args, " "), stderr)
			}
		}
	}
	// With --split they work, the old --split=NAME too.
	for _, args := range [][]string{
		{"score", lesmis, "--top", "2", "--split", "--splitter", "mcl", "--split-top", "1", "--split-min-ambiguity", "0.99"},
		{"score", lesmis, "--top", "2", "--split=mcl", "--method", "degree"},
	} {
		if code, out, stderr := runCLI(t, "", args...); code != 0 || !strings.Contains(out, "|") {
			t.Errorf("%q: exit %d, %q, %s", args, code, out, stderr)
		}
	}
	// From a file, without --split: nothing is refused, nothing is split.
	cfg := writeFile(t, t.TempDir(), "fondue.yaml", "split:\n  method: mcl\n  top: 3\n  min_ambiguity: 0.9\n")
	code, out, stderr := runCLI(t, "", "score", lesmis, "--top", "2", "--method", "degree", "--config", cfg)
	if code != 0 || strings.Count(out, "\t") != 2*3 {
		t.Errorf("split settings in a file without --split: exit %d, %q, %s", code, out, stderr)
	}
}

// The splitters the README's flag table and config.example.yaml offer for
// --splitter (split.method) are exactly those score takes, and each works.
func TestDocumentedSplittersWork(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `--splitter` \\| [^|]* \\| ([^|(]*)").FindSubmatch(readme)
	if row == nil {
		t.Fatal("README.md has no --splitter row in the flag table")
	}
	var inReadme []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllSubmatch(row[1], -1) {
		inReadme = append(inReadme, string(m[1]))
	}
	example, err := os.ReadFile("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	list := regexp.MustCompile(`(?s)# Splitter \(--splitter\):.*?one of ([a-z0-9]+(?:,\s*#?\s*[a-z0-9]+)*)`).FindSubmatch(example)
	if list == nil {
		t.Fatal("config.example.yaml does not list the splitters of split.method")
	}
	var inExample []string
	for _, f := range strings.Split(string(list[1]), ",") {
		inExample = append(inExample, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(f), "#")))
	}
	want := splitterNames()
	for what, got := range map[string][]string{"README.md": inReadme, "config.example.yaml": inExample} {
		if !slices.Equal(got, want) {
			t.Errorf("%s offers the splitters %q; score takes %q", what, got, want)
		}
		for _, name := range got {
			code, out, stderr := runCLI(t, "", "score", lesmis, "--top", "1", "--split", "--splitter", name)
			if code != 0 || !strings.Contains(out, "|") {
				t.Errorf("%s offers --splitter %s: exit %d, %q, %s", what, name, code, out, stderr)
			}
		}
	}
}

// The README's memory figure is what estimate says for the command it
// names.
func TestReadmeMemoryFigure(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	m := regexp.MustCompile("`fondue-neo4j (estimate [^`]+)` says ([0-9.]+ [KMGT]?i?B)").FindStringSubmatch(text)
	if m == nil {
		t.Fatal("README.md has no \"`fondue-neo4j estimate ...` says N GiB\"")
	}
	// (--max-memory none: the figure, not whether this machine has it.)
	code, out, stderr := runCLI(t, "", append(strings.Fields(m[1]), "--max-memory", "none")...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", m[1], code, stderr)
	}
	got := regexp.MustCompile(`required memory \(peak resident, with GC headroom\): ([0-9.]+ [KMGT]?i?B)`).FindStringSubmatch(out)
	if got == nil || got[1] != m[2] {
		t.Errorf("README.md: %s says %s; it says %q", m[1], m[2], out)
	}
}
