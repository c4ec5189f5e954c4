package score

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// refPieces labels node i's neighbours by breadth-first search over the
// relation of pieces.go, written from its definition: linked, when links
// among the neighbours reach at least half of them; else linked or
// sharing a neighbour other than i.
func refPieces(g *graph.Graph, i int) [][]int32 {
	nb := g.Neighbors(i)
	reached := 0
	for _, a := range nb {
		for _, b := range nb {
			if a != b && g.HasEdge(int(a), int(b)) {
				reached++
				break
			}
		}
	}
	linksOnly := 2*reached >= len(nb)
	related := func(a, b int32) bool {
		if g.HasEdge(int(a), int(b)) {
			return true
		}
		if linksOnly {
			return false
		}
		for _, x := range g.Neighbors(int(a)) {
			if int(x) != i && g.HasEdge(int(x), int(b)) {
				return true
			}
		}
		return false
	}
	seen := map[int32]bool{}
	var out [][]int32
	for _, s := range nb {
		if seen[s] {
			continue
		}
		seen[s] = true
		grp := []int32{s}
		for q := 0; q < len(grp); q++ {
			for _, t := range nb {
				if !seen[t] && related(grp[q], t) {
					seen[t] = true
					grp = append(grp, t)
				}
			}
		}
		slices.Sort(grp)
		out = append(out, grp)
	}
	return out
}

// piecesOf groups node i's neighbours by pieceLabels.
func piecesOf(t *testing.T, g *graph.Graph, i int, w *Pieces) [][]int32 {
	t.Helper()
	label, count, err := w.pieceLabels(g, i, false)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]int32, count)
	for k, j := range g.Neighbors(i) {
		out[label[k]] = append(out[label[k]], j)
	}
	return out
}

func TestPiecesKnownGraphs(t *testing.T) {
	var w Pieces
	// Node 0 with two triangles of neighbours {1,2,3} and {4,5}, plus 6
	// alone: links relate them, three pieces.
	g := testkit.NewGraph(7, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {1, 2}, {2, 3}, {4, 5}})
	if got, want := piecesOf(t, g, 0, &w), [][]int32{{1, 2, 3}, {4, 5}, {6}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("pieces of 0: %v, want %v", got, want)
	}
	// Bipartite: author 0 wrote papers 1, 2, 3; author 4 also wrote 1 and
	// 2, author 5 only 3. Papers are never linked: 1 and 2 share author 4,
	// 3 shares nobody but 0.
	b := testkit.NewGraph(6, [][2]int{{0, 1}, {0, 2}, {0, 3}, {4, 1}, {4, 2}, {5, 3}})
	if got, want := piecesOf(t, b, 0, &w), [][]int32{{1, 2}, {3}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("pieces of author 0: %v, want %v", got, want)
	}
	// With a link among the neighbours, common neighbours no longer count:
	// 1-2 linked, 3 and 4 share node 5 but stay apart.
	c := testkit.NewGraph(6, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {3, 5}, {4, 5}})
	if got, want := piecesOf(t, c, 0, &w), [][]int32{{1, 2}, {3}, {4}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("pieces of 0 with a link: %v, want %v", got, want)
	}
	// Links that reach at most half of the neighbours: common neighbours
	// count too. 1-2 linked; 3, 4 and 5 are linked to no neighbour (3 of
	// 5) and share node 6.
	d := testkit.NewGraph(7, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {1, 2}, {3, 6}, {4, 6}, {5, 6}})
	if got, want := piecesOf(t, d, 0, &w), [][]int32{{1, 2}, {3, 4, 5}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("pieces of 0 with few links: %v, want %v", got, want)
	}
}

func TestPiecesMatchBreadthFirstSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 60; trial++ {
		n := 5 + r.IntN(40)
		p := 0.02 + 0.3*r.Float64()
		var edges [][2]int
		bip := trial%3 == 0 // every third graph bipartite (even/odd nodes)
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				if bip && a%2 == b%2 {
					continue
				}
				if r.Float64() < p {
					edges = append(edges, [2]int{a, b})
				}
			}
		}
		g := testkit.NewGraph(n, edges)
		var w Pieces
		for i := 0; i < n; i++ {
			got := piecesOf(t, g, i, &w)
			for _, grp := range got {
				slices.Sort(grp)
			}
			want := refPieces(g, i)
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("trial %d node %d: pieces %v, want %v", trial, i, got, want)
			}
		}
	}
}

func TestEffectiveCount(t *testing.T) {
	for _, c := range []struct {
		sizes []int32
		want  float64
	}{
		{nil, 0},
		{[]int32{5}, 1},
		{[]int32{3, 3}, 2},
		{[]int32{1, 1, 1, 1}, 4},
		{[]int32{8, 2}, 1 / (0.64 + 0.04)}, // 1.47: one entity and strays
		{[]int32{20, 1, 1}, 1 / (400.0/484 + 2.0/484)}, // 1.20
	} {
		if got := effectiveCount(c.sizes); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("effectiveCount(%v) = %v, want %v", c.sizes, got, c.want)
		}
	}
	for _, c := range []struct {
		eff  float64
		want int
	}{{0, 1}, {1.2, 1}, {1.49, 1}, {1.5, 2}, {2.4, 2}, {3.7, 4}} {
		if got := entitiesOf(c.eff); got != c.want {
			t.Errorf("entitiesOf(%v) = %d, want %d", c.eff, got, c.want)
		}
	}
}

func TestEstimateEntities(t *testing.T) {
	// Node 0 joins two cliques of four (two entities of equal weight);
	// node 9 hangs off clique A: one entity. Node 10 is isolated.
	var edges [][2]int
	clique := func(ns ...int) {
		for a := range ns {
			for b := a + 1; b < len(ns); b++ {
				edges = append(edges, [2]int{ns[a], ns[b]})
			}
		}
	}
	clique(1, 2, 3, 4)
	clique(5, 6, 7, 8)
	for j := 1; j <= 8; j++ {
		edges = append(edges, [2]int{0, j})
	}
	edges = append(edges, [2]int{9, 1})
	g := testkit.NewGraph(11, edges)
	got, err := EstimateEntities(context.Background(), g, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 2 || got[9] != 1 || got[10] != 0 {
		t.Fatalf("entities %v: want 2 for node 0, 1 for node 9, 0 for the isolated node 10", got)
	}
	// Only node 0 scored.
	scored := make([]bool, 11)
	scored[0] = true
	got, err = EstimateEntities(context.Background(), g, scored, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if (i == 0) != (v != 0) {
			t.Fatalf("entities %v with only node 0 scored", got)
		}
	}
}
