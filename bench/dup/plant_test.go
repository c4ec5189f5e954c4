package dup

import (
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// A star 0 - {1..5} and a path 1-2: only nodes 0, 1, 2 have degree >= 2;
// at ratio .1 of 6 nodes one is chosen.
func TestPlant(t *testing.T) {
	g, err := graph.NewGraph(6, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for seed := range uint64(20) {
		p, err := Plant(g, 0.1, 0, seed)
		if err != nil {
			t.Fatal(err)
		}
		if p.Graph.NumNodes() != 7 || p.Graph.NumEdges() != 6 || len(p.Pairs) != 1 || p.Pairs[0][1] != 6 {
			t.Fatalf("seed %d: %d nodes, %d edges, pairs %v", seed, p.Graph.NumNodes(), p.Graph.NumEdges(), p.Pairs)
		}
		v := p.Pairs[0][0]
		seen[v] = true
		// The two pieces hold the original links, split floor(d/2) to the new node.
		if got, want := p.Graph.Degree(6), g.Degree(v)/2; got != want {
			t.Errorf("seed %d: the duplicate of %d has %d links, want %d", seed, v, got, want)
		}
		union := append(slices.Clone(p.Graph.Neighbors(v)), p.Graph.Neighbors(6)...)
		slices.Sort(union)
		if !slices.Equal(union, g.Neighbors(v)) {
			t.Errorf("seed %d: pieces of %d hold %v, want %v", seed, v, union, g.Neighbors(v))
		}
		again, _ := Plant(g, 0.1, 0, seed)
		if again.Pairs[0] != p.Pairs[0] || !slices.Equal(again.Graph.Neighbors(6), p.Graph.Neighbors(6)) {
			t.Errorf("seed %d: not deterministic", seed)
		}
	}
	if seen[3] || seen[4] || seen[5] || len(seen) < 2 {
		t.Errorf("chosen nodes over 20 seeds: %v, want some of 0, 1, 2 only", seen)
	}
	if _, err := Plant(g, 0.9, 0, 1); err == nil {
		t.Error("5 duplicates of 3 eligible nodes: no error")
	}
}

// Planted pairs (0,10), (1,11), (2,12); candidates: (0,10) .9, (3,4) .8,
// (1,11) .5, (5,6) .5. AUC over the candidates: positives .9 and .5
// against negatives .8 and .5: (1 + 1 + 0 + .5) / 4. With (2,12) missing
// ranked last: (2.5 + 0) / 6.
func TestScorePlanted(t *testing.T) {
	p := &Planted{Pairs: [][2]int{{0, 10}, {1, 11}, {2, 12}}}
	s := ScorePlanted(p, []Pair{{0, 10, .9}, {3, 4, .8}, {11, 1, .5}, {5, 6, .5}})
	if s.Found != 2 || s.Planted != 3 || s.Candidates != 4 || !near(s.AUC, 2.5/4) || !near(s.AUCMissing, 2.5/6) {
		t.Errorf("ScorePlanted = %+v, want found 2 of 3, AUC .625, with missing .417", s)
	}
}

// With overlap .5, node 0 of a star of 8 leaves (degree 8) gives 4 links
// to the new node and keeps 2 of them: degrees 6 and 4, 2 shared.
func TestPlantOverlap(t *testing.T) {
	var edges [][2]int
	for i := 1; i <= 8; i++ {
		edges = append(edges, [2]int{0, i})
	}
	g, err := graph.NewGraph(9, edges)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Plant(g, 0.01, 0.5, 3)
	if err != nil {
		t.Fatal(err)
	}
	if p.Pairs[0] != [2]int{0, 9} {
		t.Fatalf("pairs %v, want [[0 9]]", p.Pairs)
	}
	a, b := p.Graph.Neighbors(0), p.Graph.Neighbors(9)
	shared := 0
	for _, u := range a {
		if slices.Contains(b, u) {
			shared++
		}
	}
	if len(a) != 6 || len(b) != 4 || shared != 2 {
		t.Errorf("degrees %d and %d, %d shared; want 6, 4, 2", len(a), len(b), shared)
	}
	if _, err := Plant(g, 0.01, 1.5, 3); err == nil {
		t.Error("overlap 1.5: no error")
	}
}

// Adamic-Adar by hand: 0 and 1 share 2 (degree 3) and 3 (degree 2):
// 1/ln 3 + 1/ln 2; 0 and 4 share nothing.
func TestAdamicAdar(t *testing.T) {
	g, err := graph.NewGraph(6, [][2]int{{0, 2}, {1, 2}, {2, 5}, {0, 3}, {1, 3}, {4, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := adamicAdar(g, g.Neighbors(0), g.Neighbors(1)), 1/math.Log(3)+1/math.Log(2); !near(got, want) {
		t.Errorf("adamicAdar(0, 1) = %v, want %v", got, want)
	}
	if got := adamicAdar(g, g.Neighbors(0), g.Neighbors(4)); got != 0 {
		t.Errorf("adamicAdar(0, 4) = %v, want 0", got)
	}
}
