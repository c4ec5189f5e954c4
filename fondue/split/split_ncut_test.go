package split

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// twoCliques is testkit.TwoCliques with its embedding.
func twoCliques(a, b int) (*graph.Graph, *cne.Embedding) {
	g, x := testkit.TwoCliques(a, b)
	return g, &cne.Embedding{Dim: 2, X: x}
}

func propose(t *testing.T, g *graph.Graph, emb *cne.Embedding, method string, node int) [][]int32 {
	t.Helper()
	in := &Input{Embedding: emb, Score: score.Options{Seed: 1}}
	if emb != nil {
		p, err := cne.FitPrior(context.Background(), g, cne.PriorOptions{})
		if err != nil {
			t.Fatal(err)
		}
		in.Prior = p
	}
	groups, err := Propose(context.Background(), g, in, Find(Splitters(), method), []int{node}, 2)
	if err != nil {
		t.Fatal(err)
	}
	return groups[0]
}

// The power-iteration path (more than ncutExactMax neighbours) finds the
// same split.
func TestNCutLargeEgoNet(t *testing.T) {
	g, emb := twoCliques(200, 150)
	got := propose(t, g, emb, NCut, 0)
	want := [][]int32{testkit.Range(1, 200), testkit.Range(201, 350)}
	if !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
		t.Fatalf("groups of sizes %d, %d; want the two cliques", len(got[0]), len(got[1]))
	}
}

// A neighbour that only the centre ties to the rest is kept on its own (the
// hedge), and so is one that shares a neighbour outside the ego network
// with a clique member: in a neighbourhood with links, only links join
// pieces.
func TestNCutHedge(t *testing.T) {
	// Cliques 1..4 and 5..8 around centre 0; 9 is a pendant neighbour of 0;
	// 10 is a neighbour of 0 linked to 11, which is linked to clique member 1.
	var e [][2]int
	for _, c := range [][2]int{{1, 4}, {5, 8}} {
		for x := c[0]; x <= c[1]; x++ {
			for y := x + 1; y <= c[1]; y++ {
				e = append(e, [2]int{x, y})
			}
		}
	}
	for x := 1; x <= 10; x++ {
		e = append(e, [2]int{0, x})
	}
	e = append(e, [2]int{10, 11}, [2]int{11, 1})
	g := testkit.NewGraph(12, e)
	got := propose(t, g, nil, NCut, 0)
	want := [][]int32{{1, 2, 3, 4}, {5, 6, 7, 8}, {9}, {10}}
	if !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
		t.Fatalf("groups %v, want %v", got, want)
	}
}

// Pieces that only the centre ties to anything stay apart, however many:
// two cliques joined through the rest of the graph (4-8-9-5) and two
// pendant pairs make four groups.
func TestNCutKeepsPiecesApart(t *testing.T) {
	var e [][2]int
	clique := func(lo, hi int) { e = testkit.AppendHubClique(e, lo, hi) }
	clique(1, 4)
	clique(5, 7)
	e = append(e, [2]int{4, 8}, [2]int{8, 9}, [2]int{9, 5})
	e = append(e, [2]int{0, 10}, [2]int{0, 11}, [2]int{10, 11}, [2]int{0, 12}, [2]int{0, 13}, [2]int{12, 13})
	g := testkit.NewGraph(14, e)
	want := [][]int32{{1, 2, 3, 4}, {5, 6, 7}, {10, 11}, {12, 13}}
	for _, sp := range []string{NCut} {
		if got := propose(t, g, nil, sp, 0); !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
			t.Fatalf("%s: groups %v, want %v", sp, got, want)
		}
	}
}

// In a neighbourhood without links (an author's papers), the groups are
// the pieces joined by shared neighbours (co-authors), whatever the
// embedding says: author 0 wrote papers 1-6; papers 1, 2 and 3 share
// co-authors 10 and 11, papers 4 and 5 share co-author 12, paper 6 has
// its own co-author 13. An embedding that pulls paper 3 towards paper 4
// does not move it.
func TestNCutBipartitePieces(t *testing.T) {
	g := testkit.NewGraph(14, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6},
		{10, 1}, {10, 2}, {11, 2}, {11, 3}, {12, 4}, {12, 5}, {13, 6}})
	emb := &cne.Embedding{Dim: 2, X: make([]float64, 2*14)}
	for x, pos := range map[int][2]float64{1: {1, 0}, 2: {1, 0.1}, 3: {-1, 0}, 4: {-1, 0.1}, 5: {-1, 0.2}, 6: {0, 1}} {
		emb.X[2*x], emb.X[2*x+1] = pos[0], pos[1]
	}
	want := [][]int32{{1, 2, 3}, {4, 5}, {6}}
	for _, e := range []*cne.Embedding{emb, nil} {
		if got := propose(t, g, e, NCut, 0); !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
			t.Fatalf("groups %v, want %v", got, want)
		}
	}
}

// Over the common-neighbour budget, the two cliques still come apart (on
// links and the kernel alone).
func TestNCutPairBudget(t *testing.T) {
	sp := &builtinSplitter{name: NCut, split: splitNCut, pairBudget: 10}
	g, emb := twoCliques(8, 5)
	want := [][]int32{testkit.Range(1, 8), testkit.Range(9, 13)}
	for _, e := range []*cne.Embedding{emb, nil} {
		got, err := Propose(context.Background(), g, &Input{Embedding: e, Score: score.Options{Seed: 1}}, sp, []int{0}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got[0], want, slices.Equal[[]int32]) {
			t.Fatalf("groups %v, want %v", got[0], want)
		}
	}
}

func TestDefaultSplitterFirst(t *testing.T) {
	sp := Splitters()
	if sp[0].Name() != Default {
		t.Fatalf("Splitters()[0] is %q, want the default %q", sp[0].Name(), Default)
	}
	seen := map[string]bool{}
	for _, s := range sp {
		if seen[s.Name()] {
			t.Fatalf("splitter %q listed twice", s.Name())
		}
		seen[s.Name()] = true
		if Find(sp, s.Name()) != s {
			t.Fatalf("FindSplitter(%q) does not find it", s.Name())
		}
	}
}

func TestQuickMedian(t *testing.T) {
	for _, xs := range [][]float64{{3}, {2, 1}, {5, 1, 4, 2, 3}, {1, 1, 1, 2}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}} {
		s := slices.Sorted(slices.Values(xs))
		want := s[(len(s)-1)/2]
		if got := vec.QuickMedian(slices.Clone(xs)); got != want {
			t.Errorf("quickMedian(%v) = %v, want %v", xs, got, want)
		}
	}
	if !math.IsNaN(vec.QuickMedian(nil)) {
		t.Error("quickMedian(nil) is not NaN")
	}
}

// A knit neighbourhood without a community boundary is not cut: node 0's
// neighbours form one clique (one group). Two cliques joined by one link
// are two communities (two groups).
func TestNCutOneGroupWithoutBoundary(t *testing.T) {
	var e [][2]int
	e = testkit.AppendHubClique(e, 1, 8)
	g := testkit.NewGraph(9, e)
	if got := propose(t, g, nil, NCut, 0); len(got) != 1 || len(got[0]) != 8 {
		t.Fatalf("clique: groups %v, want one group of 8", got)
	}
	e = testkit.AppendHubClique(testkit.AppendHubClique(nil, 1, 6), 7, 11)
	g = testkit.NewGraph(12, append(e, [2]int{6, 7}))
	want := [][]int32{testkit.Range(1, 6), testkit.Range(7, 11)}
	if got := propose(t, g, nil, NCut, 0); !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
		t.Fatalf("two cliques joined by one link: groups %v, want %v", got, want)
	}
}

// In a neighbourhood where links reach fewer than half of the neighbours
// (score.LinkPoor: a graph with few triangles), the groups are the pieces
// under links and common neighbours: 1-2 linked, 3 and 4 share node 7, 5
// and 6 share node 8, and 4 of the 6 neighbours have no link among them.
// Links alone would leave 3, 4, 5 and 6 a group each.
func TestNCutLinkPoorNeighbourhood(t *testing.T) {
	g := testkit.NewGraph(9, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6},
		{1, 2}, {3, 7}, {4, 7}, {5, 8}, {6, 8}})
	got := propose(t, g, nil, NCut, 0)
	want := [][]int32{{1, 2}, {3, 4}, {5, 6}}
	if !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
		t.Fatalf("groups %v, want %v", got, want)
	}
}
