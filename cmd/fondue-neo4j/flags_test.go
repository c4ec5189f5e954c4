package main

import (
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
