package research

import (
	"context"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// groupsOf runs a splitter (no score, no embedding) on the given nodes.
func groupsOf(t *testing.T, g *graph.Graph, name string, nodes ...int) [][][]int32 {
	t.Helper()
	sp := split.Find(Splitters(), name)
	if sp == nil {
		t.Fatalf("no splitter %q", name)
	}
	props, err := fondue.ProposeSplits(context.Background(), g, nil, nodes, fondue.Options{Workers: 2, Split: fondue.SplitOptions{Splitter: sp}})
	if err != nil {
		t.Fatal(err)
	}
	out := make([][][]int32, len(props))
	for k, p := range props {
		out[k] = p.Groups
	}
	return out
}

func sameGroups(a, b [][]int32) bool { return slices.EqualFunc(a, b, slices.Equal[[]int32]) }

// The co-author shape: node 0's neighbours 1..6. 1-2 are linked, 2-3
// linked (so 1, 2, 3 are one ego component), 4 and 5 share node 7 (not a
// neighbour of 0), 6 shares only 0 with the others, 8 hangs off 6.
func TestComponentSplittersCoAuthor(t *testing.T) {
	g := newGraph(t, 9, [][2]int{
		{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6},
		{1, 2}, {2, 3}, {4, 7}, {5, 7}, {6, 8},
	})
	ego := groupsOf(t, g, EgoComponents, 0, 7)
	// ProposeSplits sorts the groups, largest first.
	if want := [][]int32{{1, 2, 3}, {4}, {5}, {6}}; !sameGroups(ego[0], want) {
		t.Errorf("ego-components of 0: %v, want %v", ego[0], want)
	}
	if want := [][]int32{{4}, {5}}; !sameGroups(ego[1], want) {
		t.Errorf("ego-components of 7: %v, want %v", ego[1], want)
	}
	two := groupsOf(t, g, TwoHopComponents, 0, 7)
	if want := [][]int32{{1, 2, 3}, {4, 5}, {6}}; !sameGroups(two[0], want) {
		t.Errorf("two-hop-components of 0: %v, want %v", two[0], want)
	}
	// 4 and 5 share 0 besides 7: together.
	if want := [][]int32{{4, 5}}; !sameGroups(two[1], want) {
		t.Errorf("two-hop-components of 7: %v, want %v", two[1], want)
	}
}

// The knowledge-graph shape, (:Author)-[:WROTE]->(:Paper): author a0
// wrote papers p1..p4; a1 co-wrote p1 and p2, a2 co-wrote p3 alone with a0,
// a3 co-wrote p4 and p5 (a paper a0 did not write). Papers are never
// linked, so every paper is its own ego component; two-hop components
// join p1 and p2 (through a1) and nothing else: p3 and p4 share only a0.
func TestComponentSplittersWrote(t *testing.T) {
	var b graph.Builder
	for _, e := range [][2]string{
		{"a:0", "p:1"}, {"a:0", "p:2"}, {"a:0", "p:3"}, {"a:0", "p:4"},
		{"a:1", "p:1"}, {"a:1", "p:2"}, {"a:2", "p:3"}, {"a:3", "p:4"}, {"a:3", "p:5"},
	} {
		b.AddEdge(e[0], e[1])
	}
	g := b.Build()
	idx := func(key string) int32 {
		i, ok := g.Index(key)
		if !ok {
			t.Fatalf("no node %s", key)
		}
		return int32(i)
	}
	keys := func(groups [][]int32) [][]string {
		var out [][]string
		for _, grp := range groups {
			var ks []string
			for _, j := range grp {
				ks = append(ks, g.Key(int(j)))
			}
			slices.Sort(ks)
			out = append(out, ks)
		}
		return out
	}
	a0 := int(idx("a:0"))
	ego := keys(groupsOf(t, g, EgoComponents, a0)[0])
	if len(ego) != 4 {
		t.Errorf("ego-components of a:0: %v, want every paper alone", ego)
	}
	two := keys(groupsOf(t, g, TwoHopComponents, a0)[0])
	want := [][]string{{"p:1", "p:2"}, {"p:3"}, {"p:4"}}
	if !slices.EqualFunc(two, want, slices.Equal[[]string]) {
		t.Errorf("two-hop-components of a:0: %v, want %v", two, want)
	}
	// A paper's neighbours are its authors: a:0 and a:1 share p:2 on p:1.
	p1 := keys(groupsOf(t, g, TwoHopComponents, int(idx("p:1")))[0])
	if want := [][]string{{"a:0", "a:1"}}; !slices.EqualFunc(p1, want, slices.Equal[[]string]) {
		t.Errorf("two-hop-components of p:1: %v, want %v", p1, want)
	}
}

// One worker serves nodes of different graphs and many calls: its marks
// never leak from one call to the next.
func TestComponentSplittersReuseWorker(t *testing.T) {
	g1 := newGraph(t, 5, [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}})
	g2 := newGraph(t, 4, [][2]int{{0, 1}, {0, 2}, {0, 3}})
	sp := split.Find(Splitters(), TwoHopComponents).NewWorker()
	for range 3 {
		// 1 and 2 share 3 in g1.
		if got, _ := sp(g1, &split.Input{}, 0); len(got) != 1 {
			t.Fatalf("g1 node 0: %v, want one group", got)
		}
		if got, _ := sp(g2, &split.Input{}, 0); len(got) != 3 {
			t.Fatalf("g2 node 0: %v, want three groups", got)
		}
		// In g1 node 3's neighbours 1 and 2 share 0; 4 is alone.
		if got, _ := sp(g1, &split.Input{}, 3); len(got) != 2 {
			t.Fatalf("g1 node 3: %v, want two groups", got)
		}
	}
}

func newGraph(t *testing.T, n int, edges [][2]int) *graph.Graph {
	t.Helper()
	g, err := graph.NewGraph(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
