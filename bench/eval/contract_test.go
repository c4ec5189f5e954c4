package eval

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/bench/generate"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
)

// contractBrute recomputes a contraction from its pairs alone: the contracted
// edge set (as original-index pairs of representatives), the number of pair
// edges and the number of edges lost as duplicates.
func contractBrute(g *graph.Graph, pairs [][2]int) (edges map[[2]int]bool, loops, dups int) {
	rep := make([]int, g.NumNodes())
	for i := range rep {
		rep[i] = i
	}
	for _, p := range pairs {
		rep[p[1]] = p[0]
	}
	edges = map[[2]int]bool{}
	for u := 0; u < g.NumNodes(); u++ {
		for v := u + 1; v < g.NumNodes(); v++ {
			if !g.HasEdge(u, v) {
				continue
			}
			a, b := rep[u], rep[v]
			if a == b {
				loops++
				continue
			}
			e := [2]int{min(a, b), max(a, b)}
			if edges[e] {
				dups++
			}
			edges[e] = true
		}
	}
	return edges, loops, dups
}

func contractCheck(t *testing.T, g *graph.Graph, c *Contraction) {
	t.Helper()
	n, q := g.NumNodes(), len(c.Pairs)
	h := c.Graph
	if h.NumNodes() != n-q {
		t.Fatalf("%d nodes, want %d", h.NumNodes(), n-q)
	}
	edges, loops, dups := contractBrute(g, c.Pairs)
	if h.NumEdges() != len(edges) || h.NumEdges() != g.NumEdges()-loops-dups {
		t.Fatalf("%d edges, brute force %d = %d − %d pair edges − %d duplicates", h.NumEdges(), len(edges), g.NumEdges(), loops, dups)
	}
	if c.DroppedLoops != loops || c.MergedEdges != dups {
		t.Fatalf("DroppedLoops %d MergedEdges %d, want %d %d", c.DroppedLoops, c.MergedEdges, loops, dups)
	}
	// Every contracted edge is a brute-force edge (same count, so equal).
	for a := 0; a < h.NumNodes(); a++ {
		ka, _ := c.Origins(a)
		for _, b := range h.Neighbors(a) {
			kb, _ := c.Origins(int(b))
			if !edges[[2]int{min(ka, kb), max(ka, kb)}] {
				t.Fatalf("edge %d-%d (originals %d-%d) is not in the brute-force contraction", a, b, ka, kb)
			}
		}
	}
	// Labels, origins, keys and the index map agree.
	amb := 0
	for a := 0; a < h.NumNodes(); a++ {
		kept, removed := c.Origins(a)
		if c.Ambiguous[a] != (removed >= 0) {
			t.Fatalf("node %d: ambiguous %v, removed original %d", a, c.Ambiguous[a], removed)
		}
		if c.Ambiguous[a] {
			amb++
			if c.NewIndex[removed] != int32(a) {
				t.Fatalf("removed %d maps to %d, want %d", removed, c.NewIndex[removed], a)
			}
		}
		if c.NewIndex[kept] != int32(a) || h.Key(a) != g.Key(kept) {
			t.Fatalf("node %d: original %d maps to %d, key %q want %q", a, kept, c.NewIndex[kept], h.Key(a), g.Key(kept))
		}
		if a > 0 {
			if prev, _ := c.Origins(a - 1); prev >= kept {
				t.Fatalf("kept nodes out of original order: %d then %d", prev, kept)
			}
		}
	}
	if amb != q || c.NumAmbiguous() != q {
		t.Fatalf("%d ambiguous nodes, want %d", amb, q)
	}
}

func TestContractDatasets(t *testing.T) {
	for _, name := range []string{"karate", "lesmis", "polbooks", "netscience"} {
		g := readTestGraph(t, name)
		for _, ratio := range []float64{0.01, 0.1, 0.3} {
			for seed := uint64(0); seed < 3; seed++ {
				t.Run(fmt.Sprintf("%s/r=%v/seed=%d", name, ratio, seed), func(t *testing.T) {
					c, err := Contract(g, ratio, seed)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := len(c.Pairs), int(ratio*float64(g.NumNodes())); got != want {
						t.Fatalf("got %d pairs, want %d", got, want)
					}
					contractCheck(t, g, c)
					for i := 0; i < c.Graph.NumNodes(); i++ {
						if c.Graph.Degree(i) == 0 {
							t.Fatalf("node %d: got degree 0, want none isolated", i)
						}
					}
				})
			}
		}
	}
}

func TestContractSharedNeighboursAndBothMerged(t *testing.T) {
	// The hand-built case of TestTruthSplitByHand.
	g, c := contractHandCase(t)
	contractCheck(t, g, c)
	// 11 edges − the pair edge 0-4 − duplicates 4-3 (of 0-3) and 4-8 (of 0-7).
	if c.Graph.NumEdges() != 8 || c.DroppedLoops != 1 || c.MergedEdges != 2 || c.Graph.Duplicates() != 2 {
		t.Fatalf("%d edges, %d loops, %d merged; want 8, 1, 2", c.Graph.NumEdges(), c.DroppedLoops, c.MergedEdges)
	}
}

func TestContractAdjacentPairDropsLoop(t *testing.T) {
	// Path 0-1-2-3; merging 2 into 1 gives the path 0-1-3 (indices 0,1,2).
	g := newGraph(t, 4, [][2]int{{0, 1}, {1, 2}, {2, 3}})
	c, err := ContractPairs(g, [][2]int{{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	h := c.Graph
	if h.NumNodes() != 3 || h.NumEdges() != 2 || h.HasEdge(1, 1) || !h.HasEdge(0, 1) || !h.HasEdge(1, 2) || h.HasEdge(0, 2) {
		t.Fatalf("contracted path: %d nodes %d edges", h.NumNodes(), h.NumEdges())
	}
	if c.DroppedLoops != 1 || c.MergedEdges != 0 || h.SelfLoops() != 0 || h.Duplicates() != 0 {
		t.Fatalf("loops %d merged %d", c.DroppedLoops, c.MergedEdges)
	}
	if !slices.Equal(c.Ambiguous, []bool{false, true, false}) || !slices.Equal(c.NewIndex, []int32{0, 1, 1, 2}) {
		t.Fatalf("Ambiguous %v NewIndex %v", c.Ambiguous, c.NewIndex)
	}
	if h.Key(2) != "3" {
		t.Fatalf("key of node 2 = %q, want 3", h.Key(2))
	}
}

func TestContractRatioZeroIsIdentity(t *testing.T) {
	g := readTestGraph(t, "karate")
	for _, r := range []float64{0, 0.001, 0.029} { // ⌊r·34⌋ = 0
		t.Run(fmt.Sprintf("r=%v", r), func(t *testing.T) {
			c, err := Contract(g, r, 1)
			if err != nil {
				t.Fatal(err)
			}
			if c.Graph != g || len(c.Pairs) != 0 || slices.Contains(c.Ambiguous, true) || len(c.Ambiguous) != g.NumNodes() {
				t.Fatalf("got %d pairs and a new graph or ambiguous nodes, want the identity", len(c.Pairs))
			}
			for i := range c.NewIndex {
				if k, rm := c.Origins(i); c.NewIndex[i] != int32(i) || k != i || rm != -1 {
					t.Fatalf("node %d: got index %d, origins %d %d; want %d, origins %d -1", i, c.NewIndex[i], k, rm, i, i)
				}
			}
		})
	}
}

func TestContractDeterministicBySeed(t *testing.T) {
	g := readTestGraph(t, "polbooks")
	a, _ := Contract(g, 0.1, 42)
	b, _ := Contract(g, 0.1, 42)
	other, _ := Contract(g, 0.1, 43)
	if !reflect.DeepEqual(a.Pairs, b.Pairs) || !slices.Equal(a.NewIndex, b.NewIndex) {
		t.Fatal("same seed, different contraction")
	}
	for i := 0; i < a.Graph.NumNodes(); i++ {
		if !slices.Equal(a.Graph.Neighbors(i), b.Graph.Neighbors(i)) {
			t.Fatal("same seed, different graph")
		}
	}
	if reflect.DeepEqual(a.Pairs, other.Pairs) {
		t.Fatal("seeds 42 and 43 drew the same pairs")
	}
}

func TestContractSamplingIsUniform(t *testing.T) {
	// n = 10, q = 2: each node is kept with probability 2/10 and removed with
	// probability 2/10. 4000 seeds: standard error about 0.0063.
	g := newGraph(t, 10, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 8}, {8, 9}})
	const trials = 4000
	var kept, removed [10]int
	for s := uint64(0); s < trials; s++ {
		c, err := Contract(g, 0.2, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.Pairs {
			kept[p[0]]++
			removed[p[1]]++
		}
	}
	for i := range kept {
		for _, f := range []float64{float64(kept[i]) / trials, float64(removed[i]) / trials} {
			if math.Abs(f-0.2) > 0.03 {
				t.Fatalf("node %d: kept %d removed %d times out of %d", i, kept[i], removed[i], trials)
			}
		}
	}
}

func TestContractErrors(t *testing.T) {
	g := newGraph(t, 5, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}})
	for _, r := range []float64{0.6, 1, -0.1, math.NaN(), math.Inf(1)} {
		t.Run(fmt.Sprintf("ratio=%v", r), func(t *testing.T) {
			if _, err := Contract(g, r, 1); err == nil {
				t.Error("got no error, want one")
			}
		})
	}
	t.Run("ratio=0.4", func(t *testing.T) {
		c, err := Contract(g, 0.4, 1)
		if err != nil {
			t.Fatalf("got error %v, want none", err)
		}
		if got := len(c.Pairs); got != 2 {
			t.Errorf("got %d pairs on 5 nodes, want 2", got)
		}
	})
	for _, pairs := range [][][2]int{{{0, 0}}, {{0, 1}, {1, 2}}, {{0, 5}}, {{0, 1}, {2, 0}}} {
		t.Run(fmt.Sprintf("pairs=%v", pairs), func(t *testing.T) {
			if _, err := ContractPairs(g, pairs); err == nil {
				t.Error("got no error, want one")
			}
		})
	}
}

// contractHandCase: nodes 0..9, pairs (0,4) and (7,8), edges
// 0-1 0-2 0-3 0-4 4-3 4-5 4-6 0-7 4-8 9-8 1-2. Kept nodes 0,1,2,3,5,6,7,9
// become 0..7; 4 maps to 0 and 8 to 6.
func contractHandCase(t *testing.T) (*graph.Graph, *Contraction) {
	t.Helper()
	g := newGraph(t, 10, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {4, 3}, {4, 5}, {4, 6}, {0, 7}, {4, 8}, {9, 8}, {1, 2}})
	c, err := ContractPairs(g, [][2]int{{0, 4}, {7, 8}})
	if err != nil {
		t.Fatal(err)
	}
	return g, c
}

func TestTruthSplitByHand(t *testing.T) {
	_, c := contractHandCase(t)
	cases := []struct {
		node int
		nb   []int32
		side []int8
	}{
		// Node 0 (0+4): 1, 2 from 0; 3 from both; 5→4 and 6→5 from 4;
		// 6 (= 7+8) from both, since 0~7 and 4~8. 0-4 itself is gone.
		{0, []int32{1, 2, 3, 4, 5, 6}, []int8{TruthKept, TruthKept, TruthShared, TruthRemoved, TruthRemoved, TruthShared}},
		// Node 6 (7+8): 0 from both (7~0, 8~4); 7 (= 9) from 8 only.
		{6, []int32{0, 7}, []int8{TruthShared, TruthRemoved}},
		// Node 1 is plain: all kept.
		{1, []int32{0, 2}, []int8{TruthKept, TruthKept}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("node=%d", tc.node), func(t *testing.T) {
			nb, side := c.TruthSplit(tc.node)
			if !slices.Equal(nb, tc.nb) || !slices.Equal(side, tc.side) {
				t.Errorf("got neighbours %v, sides %v; want %v, %v", nb, side, tc.nb, tc.side)
			}
		})
	}
	if k, r := c.Origins(6); k != 7 || r != 8 {
		t.Errorf("Origins(6): got %d %d, want 7 8", k, r)
	}
	if k, r := c.Origins(7); k != 9 || r != -1 {
		t.Errorf("Origins(7): got %d %d, want 9 -1", k, r)
	}
}

func TestTruthSplitMatchesOriginals(t *testing.T) {
	g := readTestGraph(t, "netscience")
	c, err := Contract(g, 0.1, 7)
	if err != nil {
		t.Fatal(err)
	}
	shared := 0
	for a := 0; a < c.Graph.NumNodes(); a++ {
		if !c.Ambiguous[a] {
			continue
		}
		kept, removed := c.Origins(a)
		nb, side := c.TruthSplit(a)
		for k, b := range nb {
			bk, br := c.Origins(int(b))
			adj := func(x int) bool { return g.HasEdge(x, bk) || (br >= 0 && g.HasEdge(x, br)) }
			want := map[[2]bool]int8{{true, false}: TruthKept, {false, true}: TruthRemoved, {true, true}: TruthShared}[[2]bool{adj(kept), adj(removed)}]
			if side[k] != want {
				t.Fatalf("node %d neighbour %d: side %d, want %d", a, b, side[k], want)
			}
			if side[k] == TruthShared {
				shared++
			}
		}
	}
	t.Logf("%d shared neighbours over %d ambiguous nodes", shared, c.NumAmbiguous())
}

// readTestGraph reads the main module's fondue/testdata/NAME.edges.
func readTestGraph(t testing.TB, name string) *graph.Graph {
	t.Helper()
	g, _, err := edgelist.ReadFile("../../fondue/testdata/"+name+".edges", edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// newGraph is graph.NewGraph for a test's own edges, failing t on an error.
func newGraph(t *testing.T, n int, edges [][2]int) *graph.Graph {
	t.Helper()
	g, err := graph.NewGraph(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The main module's fondue/testdata/polbooks-contracted.edges, which the
// splitters' conformance suite (fondue/split/splittest) reads because the
// product cannot import this package, is Contract(polbooks, 0.1, 3): the
// same keys in the same order, and the same edges.
func TestContractedFixture(t *testing.T) {
	c, err := Contract(readTestGraph(t, "polbooks"), 0.1, 3)
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, readTestGraph(t, "polbooks-contracted"), c.Graph)
}

// The main module's generated graph (internal/testenv/testgraph's
// Generated, testdata/sbm20000.edges.gz), which the product's memory and
// import tests read because they cannot import the bench, is
// generate.SBM(SBMOptions{Nodes: 20000, AvgDegree: 10, Seed: 3}).
func TestGeneratedFixture(t *testing.T) {
	want, err := generate.SBM(generate.SBMOptions{Nodes: 20000, AvgDegree: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	got, err := testgraph.Generated()
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, got, want)
}

// sameGraph fails t unless got and want have the same keys in the same
// order and the same edges.
func sameGraph(t *testing.T, got, want *graph.Graph) {
	t.Helper()
	if got.NumNodes() != want.NumNodes() || got.NumEdges() != want.NumEdges() {
		t.Fatalf("fixture has %d nodes and %d edges, want %d and %d", got.NumNodes(), got.NumEdges(), want.NumNodes(), want.NumEdges())
	}
	for i := range want.NumNodes() {
		if got.Key(i) != want.Key(i) || !slices.Equal(got.Neighbors(i), want.Neighbors(i)) {
			t.Fatalf("node %d: fixture key %s, neighbours %v; want key %s, neighbours %v",
				i, got.Key(i), got.Neighbors(i), want.Key(i), want.Neighbors(i))
		}
	}
}
