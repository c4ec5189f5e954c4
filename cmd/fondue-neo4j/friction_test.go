package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
)

// The frictions a new user met (issue 33), each a test that failed before
// its fix.

// estimate's text report goes to stdout, where a script can pipe it, and
// the documentation of --output says so.
func TestEstimateReportOnStdout(t *testing.T) {
	code, out, stderr := runCLI(t, "", "estimate", "--nodes", "1000", "--edges", "5000", "--max-memory", "8GiB")
	if code != 0 || !strings.Contains(out, "required memory") || stderr != "" {
		t.Fatalf("estimate: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	s, _ := config.Lookup("output")
	for _, clause := range strings.Split(s.Doc, ";") {
		if strings.Contains(clause, "`estimate`") && strings.Contains(clause, "stderr") {
			t.Errorf("output's documentation says estimate prints on stderr: %q", clause)
		}
	}
	fl, _ := s.FlagOn(config.CmdEstimate)
	if !strings.Contains(fl.Help, "standard output") {
		t.Errorf("estimate --output's help does not say where the report goes: %q", fl.Help)
	}
}

// A flag value of the wrong kind is said in the flag's words, like every
// other value error; a mistyped flag gets a suggestion.
func TestFlagValueErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"score", lesmis, "--top", "abc"}, "flag --top: top = abc: want a non-negative integer"},
		{[]string{"score", lesmis, "--seed", "-1"}, "flag --seed: seed = -1: want a non-negative integer"},
		{[]string{"score", lesmis, "--dim", "x"}, "flag --dim: embedding.dim = x: want a positive integer"},
		{[]string{"score", lesmis, "--sigma2", "big"}, "flag --sigma2: embedding.sigma2 = big: want a positive number"},
		{[]string{"estimate", "--nodes", "x", "--edges", "3"}, "flag --nodes = x: want an integer"},
		{[]string{"score", lesmis, "--tpo", "3"}, "unknown flag: --tpo; did you mean --top?"},
		{[]string{"score", lesmis, "--thread", "3"}, "unknown flag: --thread; did you mean --threads?"},
		{[]string{"estimate", "--node", "3", "--edges", "3"}, "unknown flag: --node; did you mean --nodes?"},
		{[]string{"score", lesmis, "--log-levl", "debug"}, "did you mean --log-level?"},
	} {
		code, _, stderr := runCLI(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "strconv") {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
	// No suggestion for a name close to nothing.
	_, _, stderr := runCLI(t, "", "score", lesmis, "--zzzzzzzz")
	if strings.Contains(stderr, "did you mean") {
		t.Errorf("--zzzzzzzz: %q", stderr)
	}
}

// estimate checks its counts: both are needed, and a simple graph of n
// nodes holds at most n(n-1)/2 edges.
func TestEstimateCounts(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nodes", "10"}, "--edges"},
		{[]string{"--edges", "10"}, "--nodes"},
		{[]string{"--nodes", "5", "--edges", "300"}, "at most 10 edges"},
	} {
		code, out, stderr := runCLI(t, "", append([]string{"estimate"}, tc.args...)...)
		if code != exitUsage || out != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("estimate %v: exit %d, %q %q; want %q", tc.args, code, out, stderr, tc.want)
		}
	}
	if code, _, stderr := runCLI(t, "", "estimate", "--nodes", "5", "--edges", "10", "--max-memory", "8GiB"); code != 0 {
		t.Errorf("a complete graph of 5 nodes: exit %d %s", code, stderr)
	}
	_, help, _ := runCLI(t, "", "estimate", "--help")
	for _, line := range strings.Split(help, "\n") {
		if strings.Contains(line, "--checkpoint") && strings.Contains(line, "warm") {
			t.Errorf("estimate --help describes --checkpoint as a warm start: %q", line)
		}
	}
}

// --header yes takes the first data line as a header, and says which.
func TestHeaderYesLogsLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g.edges")
	if err := os.WriteFile(p, []byte("# a comment\n1 2\n2 3\n3 1\n3 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "score", p, "--header", "yes", "--log-format", "text")
	if code != 0 || !strings.Contains(stderr, "header") || !strings.Contains(stderr, "line=2") || !strings.Contains(stderr, `"1 2"`) {
		t.Fatalf("exit %d, stderr %q: want the header line (2, \"1 2\") logged", code, stderr)
	}
}

// An edge list that is a folder: the folder said once.
func TestEdgeListFolder(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"score", dir}, {"score", lesmis, "--names", dir}, {"score", lesmis, "--score-nodes", dir}} {
		code, _, stderr := runCLI(t, "", args...)
		if code != exitUsage || strings.Count(stderr, dir) != 1 || !strings.Contains(stderr, "folder") {
			t.Errorf("%v: exit %d, %q: want the folder named once", args, code, stderr)
		}
	}
}

// "1 line", not "1 lines".
func TestNoEdgesPlural(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g.edges")
	if err := os.WriteFile(p, []byte("# only a comment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "score", p)
	if code != exitEmpty || !strings.Contains(stderr, "(1 line read)") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
}

// The scoring bar counts the nodes scored, as the summary does, and says
// how many more are context; so does its log record off a terminal.
func TestScoringProgressSaysContext(t *testing.T) {
	var w lockedBuffer
	p := newProgress(progressApp(t, &w, true))
	now := time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	p.report(fondue.Progress{Phase: fondue.PhaseScoring, Done: 0, Total: 8869, Context: 6676})
	p.now = func() time.Time { return now.Add(10 * time.Second) }
	p.report(fondue.Progress{Phase: fondue.PhaseScoring, Done: 4000, Total: 8869, Context: 6676})
	p.finish()
	if out := w.String(); !strings.Contains(out, "8869 scored, 6676 context") {
		t.Errorf("the bar does not say scored and context:\n%q", out)
	}

	defer func(d time.Duration) { progressLogEvery = d }(progressLogEvery)
	progressLogEvery = 0
	var l lockedBuffer
	p = newProgress(progressApp(t, &l, false))
	p.report(fondue.Progress{Phase: fondue.PhaseScoring, Done: 4000, Total: 8869, Context: 6676})
	p.finish()
	lines := progressLines(t, l.String())
	if len(lines) == 0 || lines[0]["context"] != 6676.0 {
		t.Errorf("the progress record does not say the context nodes: %s", l.String())
	}
}
