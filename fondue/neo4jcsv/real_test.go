package neo4jcsv

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
)

// kgDir holds the real knowledge graph of issue 31 (its README gives the
// counts), under BENCH_DATASETS or the shared datasets.
var kgDir = func() string {
	dir := "/work/shared/datasets"
	if env := os.Getenv("BENCH_DATASETS"); env != "" {
		dir = env
	}
	return filepath.Join(dir, "real", "dblp679-kg")
}()

func kgOptions() Options {
	p := func(s ...string) []string {
		for i := range s {
			s[i] = filepath.Join(kgDir, s[i])
		}
		return s
	}
	return Options{
		Nodes:              p("authors.csv", "papers.csv", "venues.csv", "keywords.csv"),
		Relationships:      p("wrote.csv", "published_in.csv", "has_keyword.csv"),
		ScoreLabels:        []string{"Author"},
		EvidenceProperties: []string{"title", "year"},
	}
}

// The real import files read as the README counts them, and as the same
// graph as its edge list.
func TestReadRealKG(t *testing.T) {
	if _, err := os.Stat(kgDir); err != nil {
		t.Fatalf("the real data set is missing: %v", err)
	}
	g, err := Read(context.Background(), kgOptions())
	if err != nil {
		t.Fatal(err)
	}
	if n := g.Graph.NumNodes(); n != 23242 {
		t.Errorf("%d nodes, want 23,242", n)
	}
	if m := g.Graph.NumEdges() + g.Graph.Duplicates() + g.Graph.SelfLoops(); m != 53069 {
		t.Errorf("%d relationships, want 53,069", m)
	}
	count := map[string]int{}
	targets := 0
	for i, ls := range g.Labels {
		if len(ls) != 1 {
			t.Fatalf("node %s has labels %v", g.IDs[i], ls)
		}
		count[ls[0]]++
		if g.Targets[i] != (ls[0] == "Author") {
			t.Fatalf("node %s (%v): target %v", g.IDs[i], ls, g.Targets[i])
		}
		if g.Targets[i] {
			targets++
		}
		if g.Context.Kinds[g.Context.Kind[i]] != ls[0] {
			t.Fatalf("node %s: kind %q, labels %v", g.IDs[i], g.Context.Kinds[g.Context.Kind[i]], ls)
		}
		if g.Graph.Key(i) != g.IDs[i] {
			t.Fatalf("node %d: key %q, id %q", i, g.Graph.Key(i), g.IDs[i])
		}
	}
	for l, want := range map[string]int{"Author": 8869, "Paper": 6676, "Venue": 1408, "Keyword": 6289} {
		if count[l] != want {
			t.Errorf("%d %s nodes, want %d", count[l], l, want)
		}
	}
	if err := g.Context.Check(g.Graph.NumNodes()); err != nil {
		t.Fatal(err)
	}
	ps := g.Context.Properties
	if len(ps) != 2 || ps[0].Name != "title" || ps[0].Numeric || ps[1].Name != "year" || !ps[1].Numeric {
		t.Fatalf("properties %+v", ps)
	}
	i, _ := g.Graph.Index("p:0")
	if ps[0].Text[i] != "Teach graphics using excel in place of a graphing calculator" || ps[1].Number[i] != 2006 || g.Names[i] != ps[0].Text[i] {
		t.Errorf("p:0: title %q year %v name %q", ps[0].Text[i], ps[1].Number[i], g.Names[i])
	}
	a, _ := g.Graph.Index("a:0")
	if g.Names[a] != "a. canning" || ps[0].Text[a] != "" || !math.IsNaN(ps[1].Number[a]) {
		t.Errorf("a:0: name %q title %q year %v", g.Names[a], ps[0].Text[a], ps[1].Number[a])
	}
	// The same edges as the README's edge list of this graph.
	el, _, err := edgelist.ReadFile(filepath.Join(kgDir, "dblp679-kg.edges"), edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	if el.NumEdges() != g.Graph.NumEdges() {
		t.Fatalf("%d edges, the edge list %d", g.Graph.NumEdges(), el.NumEdges())
	}
	for u := range el.NumNodes() {
		for _, v := range el.Neighbors(u) {
			i, ok1 := g.Graph.Index(el.Key(u))
			j, ok2 := g.Graph.Index(el.Key(int(v)))
			if !ok1 || !ok2 || !g.Graph.HasEdge(i, j) {
				t.Fatalf("edge %s-%s of the edge list missing", el.Key(u), el.Key(int(v)))
			}
		}
	}
}
