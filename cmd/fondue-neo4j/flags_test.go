package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/spf13/pflag"
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
	if code != 0 || strings.Count(out, "\t") != 2*4 { // node, ambiguity, degree, score, entities
		t.Errorf("split settings in a file without --split: exit %d, %q, %s", code, out, stderr)
	}
}

// The splitters the flag table of docs/configuration.md and
// config.example.yaml offer for --splitter (split.method) are exactly those
// score takes, and each works.
func TestDocumentedSplittersWork(t *testing.T) {
	readme, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	// The whole cell, its parentheses included: every splitter it names is
	// one that score takes.
	row := regexp.MustCompile("(?m)^\\| `--splitter` \\| [^|]* \\| ([^|]*) \\|$").FindSubmatch(readme)
	if row == nil {
		t.Fatal("docs/configuration.md has no --splitter row in the flag table")
	}
	var inReadme []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllSubmatch(row[1], -1) {
		if isSplitterName(string(m[1])) {
			inReadme = append(inReadme, string(m[1]))
		}
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
	for what, got := range map[string][]string{"docs/configuration.md": inReadme, "config.example.yaml": inExample} {
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

// The memory figure of docs/memory-and-scale.md is what estimate says for
// the command it names.
func TestDocumentedMemoryFigure(t *testing.T) {
	readme, err := os.ReadFile("../../docs/memory-and-scale.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	m := regexp.MustCompile("`fondue-neo4j (estimate [^`]+)` says ([0-9.]+ [KMGT]?i?B)").FindStringSubmatch(text)
	if m == nil {
		t.Fatal("docs/memory-and-scale.md has no \"`fondue-neo4j estimate ...` says N GiB\"")
	}
	// (--max-memory none: the figure, not whether this machine has it.)
	code, out, stderr := runCLI(t, "", append(strings.Fields(m[1]), "--max-memory", "none")...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", m[1], code, stderr)
	}
	got := regexp.MustCompile(`required memory \(peak resident, with GC headroom\): ([0-9.]+ [KMGT]?i?B)`).FindStringSubmatch(out)
	if got == nil || got[1] != m[2] {
		t.Errorf("docs/memory-and-scale.md: %s says %s; it says %q", m[1], m[2], out)
	}
}

// mutate returns another value for a flag, for the test that it changes
// something: other numbers, the other boolean, another name.
func mutate(t *testing.T, f *pflag.Flag) string {
	other := map[string]string{"method": "degree", "mode": "exact", "start": "noise", "max-memory": "64GiB",
		"checkpoint": filepath.Join(t.TempDir(), "emb.ck")}
	if v, ok := other[f.Name]; ok {
		return v
	}
	switch f.Value.Type() {
	case "bool":
		return strconv.FormatBool(f.DefValue != "true")
	case "int", "int64", "uint64":
		n, _ := strconv.Atoi(f.DefValue)
		return strconv.Itoa(n + 3)
	case "float64":
		x, _ := strconv.ParseFloat(f.DefValue, 64)
		return strconv.FormatFloat(2*x+0.5, 'g', -1, 64)
	}
	return "other"
}

// estimate offers only the flags that change the estimate (besides what it
// reads, --nodes, --edges, an edge list's --header, and how it prints): each
// of them, changed, changes what it prints. --lr, --seed, --epochs... do
// not change memory, so it does not offer them.
func TestEstimateOffersOnlyWhatChangesIt(t *testing.T) {
	root := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}).rootCmd()
	est, _, err := root.Find([]string{"estimate"})
	if err != nil {
		t.Fatal(err)
	}
	input := map[string]bool{"nodes": true, "edges": true, "relationships": true, "string-keys": true, "header": true, "compared": true,
		"output": true, "config": true, "log-level": true, "log-format": true, "help": true}
	base := []string{"estimate", "--nodes", "100000", "--edges", "1000000", "--max-memory", "none"}
	_, want, _ := runCLI(t, "", base...)
	checked := 0
	est.Flags().VisitAll(func(f *pflag.Flag) {
		if input[f.Name] || f.Hidden {
			return
		}
		checked++
		v := mutate(t, f)
		code, got, stderr := runCLI(t, "", append(base, "--"+f.Name+"="+v)...)
		if code != 0 || got == want {
			t.Errorf("estimate offers --%s, but --%s %s changes nothing (exit %d, %s)", f.Name, f.Name, v, code, stderr)
		}
	})
	if checked < 4 {
		t.Errorf("estimate offers %d flags that change the estimate: the memory flags are missing", checked)
	}
}

// A command offers the flags it uses: --max-memory where the memory is
// checked, not on undo; and one word means one thing: --output is a format
// (text or json) in every command, a file or folder to write is
// --output-file or --output-dir, and the older spellings are hidden.
func TestOneVocabulary(t *testing.T) {
	root := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}).rootCmd()
	for _, name := range []string{"score", "review", "sync", "estimate", "undo", "duplicates"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		if has := cmd.Flags().Lookup("max-memory") != nil; has != (name != "undo") {
			t.Errorf("%s offers --max-memory: %v", name, has)
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				if cli.DeprecatedFor(f) == "" {
					t.Errorf("%s --%s is hidden but not an older spelling of a flag", name, f.Name)
				}
				return
			}
			switch f.Name {
			case "out", "format", "run":
				t.Errorf("%s shows --%s", name, f.Name)
			case "output":
				if f.DefValue != "text" {
					t.Errorf("%s --output defaults to %q: not a format", name, f.DefValue)
				}
			}
			if f.Shorthand != "" {
				t.Errorf("%s --%s has the shorthand -%s", name, f.Name, f.Shorthand)
			}
		})
	}
	// The older spellings still work, with a warning.
	dir := t.TempDir()
	page := filepath.Join(dir, "p.html")
	for _, args := range [][]string{
		{"review", lesmis, "--top", "1", "--method", "degree", "--splitter", "mcl", "-o", page},
		{"review", lesmis, "--top", "1", "--method", "degree", "--splitter", "mcl", "--out", page},
	} {
		os.Remove(page)
		code, _, stderr := runCLI(t, "", args...)
		if _, err := os.Stat(page); code != 0 || err != nil || !strings.Contains(stderr, "--out (-o) is deprecated: write --output-file") {
			t.Errorf("%q: exit %d, page %v, stderr %q", args, code, err, stderr)
		}
	}
	code, out, stderr := runCLI(t, "", "score", lesmis, "--top", "1", "--format", "json")
	if code != 0 || !strings.HasPrefix(out, "[") || !strings.Contains(stderr, "--format is deprecated: write --output") {
		t.Errorf("--format json: exit %d, %q, %q", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "", "score", lesmis, "--top", "1", "--output", "json")
	if code != 0 || strings.Contains(stderr, "deprecated") {
		t.Errorf("--output json: exit %d, %q, %q", code, out, stderr)
	}
}
