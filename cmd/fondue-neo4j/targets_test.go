package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
)

// wroteEdges writes a small (:Author)-[:WROTE]->(:Paper) graph as an edge
// list, authors a:N and papers p:N: three communities of five authors and
// six papers each (each paper by three of its community's authors), author
// a:0 writing papers of the first two communities (a homonym), and an
// author (a:99) and a paper (p:99) with a self-loop only (isolated).
func wroteEdges(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# author paper\n")
	for c := range 3 {
		for k := range 6 {
			for j := range 3 {
				fmt.Fprintf(&b, "a:%d p:%d\n", c*10+1+(k+j)%5, c*10+1+k)
			}
		}
	}
	for _, p := range []int{1, 2, 3, 11, 12, 13} {
		fmt.Fprintf(&b, "a:0 p:%d\n", p)
	}
	b.WriteString("a:99 a:99\np:99 p:99\n")
	path := filepath.Join(t.TempDir(), "wrote.edges")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// scoreJSONRow is a line of score --output json, as these tests read it.
type scoreJSONRow struct {
	Node      string  `json:"node"`
	Ambiguity float64 `json:"ambiguity"`
	Degree    int     `json:"degree"`
	Score     float64 `json:"score"`
	Split     [][]any `json:"split"`
	Entities  *int    `json:"entities"`
}

func scoreRows(t *testing.T, out string) []scoreJSONRow {
	t.Helper()
	var rows []scoreJSONRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("score output: %v\n%s", err, out)
	}
	return rows
}

func rowNodes(rows []scoreJSONRow) []string {
	var ns []string
	for _, r := range rows {
		ns = append(ns, r.Node)
	}
	slices.Sort(ns)
	return ns
}

// --score-prefix a: scores the authors of a WROTE edge list, with the
// papers as context: only authors are printed, ranked among themselves,
// with the scores the library gives for those targets; the isolated
// paper is not counted as an unscored node.
func TestScorePrefix(t *testing.T) {
	path := wroteEdges(t)
	g, _, err := edgelist.ReadFile(path, edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	targets := make([]bool, g.NumNodes())
	authors := 0
	for i := range targets {
		if targets[i] = strings.HasPrefix(g.Key(i), "a:"); targets[i] && g.Degree(i) > 0 {
			authors++
		}
	}
	res, err := fondue.Score(context.Background(), g, fondue.Options{Seed: 5, Targets: targets})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--score-prefix", "a:"}, nil} {
		if args == nil {
			t.Setenv("FONDUE_SCORE_PREFIX", "a:")
		}
		code, out, stderr := runCLI(t, "", append([]string{"score", path, "--output", "json", "--seed", "5"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		rows := scoreRows(t, out)
		if len(rows) != authors || rows[0].Ambiguity != 1 {
			t.Fatalf("%v: %d rows (want the %d linked authors), first %+v", args, len(rows), authors, rows[0])
		}
		for _, r := range rows {
			i, _ := g.Index(r.Node)
			if !strings.HasPrefix(r.Node, "a:") || r.Score != res.Scores[i] || r.Ambiguity != res.Ambiguity[i] || r.Entities == nil || *r.Entities != res.Entities[i] {
				t.Fatalf("%v: row %+v; library: score %v, ambiguity %v, entities %d", args, r, res.Scores[i], res.Ambiguity[i], res.Entities[i])
			}
		}
		// One isolated author (a:99); the isolated paper is context.
		if !strings.Contains(stderr, "isolated nodes have no score") || !strings.Contains(stderr, `"count":1,`) || !strings.Contains(stderr, `"first":"a:99"`) {
			t.Fatalf("%v: isolated nodes: %s", args, stderr)
		}
	}
}

// --score-nodes FILE scores the listed ids; with --score-prefix, the
// nodes that either selects. --top and --split are about the scored
// nodes only.
func TestScoreNodesFile(t *testing.T) {
	path := wroteEdges(t)
	list := filepath.Join(t.TempDir(), "nodes.txt")
	if err := os.WriteFile(list, []byte("\ufeff# the homonym and two more\na:0\n\n  a:12  \r\np:3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want int // rows; -1: exactly a:0, a:12, p:3
	}{
		{[]string{"--score-nodes", list}, -1},
		{[]string{"--score-nodes", list, "--score-prefix", "x:"}, -1},
		{[]string{"--score-nodes", list, "--score-prefix", "a:"}, 16 + 1}, // 16 linked authors and p:3
	} {
		code, out, stderr := runCLI(t, "", append([]string{"score", path, "--output", "json"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		rows := scoreRows(t, out)
		got := rowNodes(rows)
		if c.want < 0 && !slices.Equal(got, []string{"a:0", "a:12", "p:3"}) || c.want >= 0 && (len(got) != c.want || !slices.Contains(got, "p:3")) {
			t.Fatalf("%v: scored %v", c.args, got)
		}
	}
	code, out, stderr := runCLI(t, "", "score", path, "--output", "json", "--score-prefix", "a:", "--top", "3", "--split")
	if code != 0 {
		t.Fatalf("--top 3 --split: exit %d: %s", code, stderr)
	}
	rows := scoreRows(t, out)
	if len(rows) != 3 {
		t.Fatalf("--top 3: %d rows", len(rows))
	}
	for _, r := range rows {
		if !strings.HasPrefix(r.Node, "a:") || len(r.Split) == 0 {
			t.Fatalf("--top 3 --split: row %+v", r)
		}
	}
}

// A bad selection is one clear line: an id the edge list does not have
// names the file and line (exit code 2); a selection without an edge
// leaves nothing to score (exit code 5).
func TestScoreSelectionErrors(t *testing.T) {
	path := wroteEdges(t)
	dir := t.TempDir()
	list := filepath.Join(dir, "nodes.txt")
	if err := os.WriteFile(list, []byte("a:0\n# comment\na:404\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--score-nodes", list}, exitUsage, list + `:3: node "a:404" is not in the edge list`},
		{[]string{"--score-nodes", filepath.Join(dir, "missing.txt")}, exitUsage, "missing.txt: no such file"},
		{[]string{"--score-prefix", "zz:"}, exitEmpty, `nothing to score: no node of the edge list is selected by --score-prefix "zz:"`},
		{[]string{"--score-prefix", "a:99"}, exitEmpty, `nothing to score: the one node selected by --score-prefix "a:99" has no edge`},
	} {
		for _, cmd := range []string{"score", "review"} {
			args := append([]string{cmd, path}, c.args...)
			if cmd == "review" {
				args = append(args, "--output-file", filepath.Join(dir, "page.html"))
			}
			code, out, stderr := runCLI(t, "", args...)
			if code != c.code || out != "" || !strings.Contains(stderr, c.msg) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("%s %v: exit %d (want %d), stdout %q, stderr %q (want %q)", cmd, c.args, code, c.code, out, stderr, c.msg)
			}
		}
	}
}

// review scores like score: with --score-prefix the page shows authors
// only.
func TestReviewScorePrefix(t *testing.T) {
	path := wroteEdges(t)
	out := filepath.Join(t.TempDir(), "page.html")
	code, _, stderr := runCLI(t, "", "review", path, "--score-prefix", "a:", "--top", "4", "--output-file", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	d := readReviewPage(t, out)
	if len(d.Nodes) == 0 {
		t.Fatal("no node to review")
	}
	for _, n := range d.Nodes {
		var key string
		if err := json.Unmarshal([]byte(n.KeyJSON), &key); err != nil || !strings.HasPrefix(key, "a:") {
			t.Fatalf("reviewed node %s (%v): want authors only", n.KeyJSON, err)
		}
	}
	if math.IsNaN(d.Nodes[0].Ambiguity) || d.Nodes[0].Ambiguity != 1 {
		t.Fatalf("first node's ambiguity %v, want 1 (the percentile among the authors)", d.Nodes[0].Ambiguity)
	}
}
