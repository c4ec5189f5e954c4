package graph

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// egoTestRandomGraph returns a G(n, p) graph plus a few hubs, so that both
// the marker scan and the binary-search path of Ego are exercised.
func egoTestRandomGraph(t testing.TB, n int, p float64, hubs int, seed uint64) *Graph {
	r := rand.New(rand.NewPCG(seed, 7))
	var edges [][2]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if r.Float64() < p {
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	for h := 0; h < hubs; h++ {
		for j := 0; j < n; j++ {
			if j != h && r.Float64() < 0.8 {
				edges = append(edges, [2]int{h, j})
			}
		}
	}
	return newTestGraph(t, n, edges)
}

// egoBrute builds the ego net of i from HasEdge alone.
func egoBrute(g *Graph, i int) (nodes []int32, adj [][]int32) {
	nodes = slices.Clone(g.Neighbors(i))
	adj = make([][]int32, len(nodes))
	for a, u := range nodes {
		for b, v := range nodes {
			if a != b && g.HasEdge(int(u), int(v)) {
				adj[a] = append(adj[a], int32(b))
			}
		}
	}
	return nodes, adj
}

func egoCheck(t *testing.T, g *Graph, e *EgoNet, i int) {
	t.Helper()
	nodes, adj := egoBrute(g, i)
	if e.Center != i || !slices.Equal(e.Nodes, nodes) {
		t.Fatalf("node %d: center %d nodes %v, want %v", i, e.Center, e.Nodes, nodes)
	}
	if len(e.Off) != len(nodes)+1 || e.Off[0] != 0 {
		t.Fatalf("node %d: bad Off %v", i, e.Off)
	}
	m := 0
	for k := range nodes {
		if got := e.Neighbors(k); !slices.Equal(got, adj[k]) {
			t.Fatalf("node %d local %d: neighbours %v, want %v", i, k, got, adj[k])
		}
		m += len(adj[k])
	}
	if e.NumEdges() != m/2 || e.NumNodes() != len(nodes) {
		t.Fatalf("node %d: %d nodes %d edges, want %d, %d", i, e.NumNodes(), e.NumEdges(), len(nodes), m/2)
	}
}

func TestEgoMatchesBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		g := egoTestRandomGraph(t, 120, 0.05, 3, seed)
		var buf EgoNet
		for i := 0; i < g.NumNodes(); i++ {
			egoCheck(t, g, egoOf(t, g, i, &buf), i)
		}
	}
	g := egoReadTestdata(t, "lesmis")
	var buf EgoNet
	for i := 0; i < g.NumNodes(); i++ {
		egoCheck(t, g, egoOf(t, g, i, &buf), i)
	}
}

func TestEgoBothPaths(t *testing.T) {
	// Node 0 has degree 3 and neighbour 1 is a hub of degree 200: the
	// binary-search path must be taken for 1 and the scan path for 2 and 3.
	edges := [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {2, 3}}
	for j := 4; j < 204; j++ {
		edges = append(edges, [2]int{1, j})
	}
	g := newTestGraph(t, 204, edges)
	if g.Degree(1) <= egoBinaryFactor*g.Degree(0)*egoCeilLog2(g.Degree(1)) {
		t.Fatalf("test graph does not trigger the search path")
	}
	e := egoOf(t, g, 0, nil)
	egoCheck(t, g, e, 0)
	// Local: 0<->1, 1<->2 (original 1-2, 2-3); local 1 = original 2.
	if !slices.Equal(e.Adj, []int32{1, 0, 2, 1}) {
		t.Fatalf("Adj = %v", e.Adj)
	}
}

func TestEgoIsolatedAndLeaf(t *testing.T) {
	g := newTestGraph(t, 4, [][2]int{{0, 1}})
	e := egoOf(t, g, 3, nil)
	if e.NumNodes() != 0 || e.NumEdges() != 0 || len(e.Off) != 1 {
		t.Fatalf("isolated node: %+v", e)
	}
	e = egoOf(t, g, 0, e)
	if !slices.Equal(e.Nodes, []int32{1}) || e.NumEdges() != 0 {
		t.Fatalf("leaf: %+v", e)
	}
}

func TestEgoNoSteadyStateAllocation(t *testing.T) {
	g := egoReadTestdata(t, "netscience")
	var buf EgoNet
	for i := 0; i < g.NumNodes(); i++ {
		g.Ego(i, &buf)
	}
	allocs := testing.AllocsPerRun(5, func() {
		for i := 0; i < g.NumNodes(); i++ {
			g.Ego(i, &buf)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per pass over all nodes, want 0", allocs)
	}
}

func TestEgoBufferAcrossGraphs(t *testing.T) {
	// A buffer sized for a big graph must still be correct on a small one.
	big := egoTestRandomGraph(t, 200, 0.05, 2, 9)
	small := egoReadTestdata(t, "karate")
	var buf EgoNet
	for i := 0; i < big.NumNodes(); i++ {
		egoOf(t, big, i, &buf)
	}
	for i := 0; i < small.NumNodes(); i++ {
		egoCheck(t, small, egoOf(t, small, i, &buf), i)
	}
}

// An ego network larger than its offsets hold is an error that wraps
// ErrEgoTooLarge (with the limit lowered: the real one takes a node of
// degree 46,000), and the buffer stays usable: its marks are cleared.
func TestEgoTooLarge(t *testing.T) {
	g := egoReadTestdata(t, "lesmis")
	var buf EgoNet
	failed := 0
	for i := 0; i < g.NumNodes(); i++ {
		_, err := g.ego(i, &buf, 20)
		if err != nil {
			failed++
			if !errors.Is(err, ErrEgoTooLarge) {
				t.Fatalf("node %d: err = %v, want ErrEgoTooLarge", i, err)
			}
			continue
		}
		egoCheck(t, g, &buf, i)
		if len(buf.Adj) > 20 {
			t.Fatalf("node %d: %d entries accepted, limit 20", i, len(buf.Adj))
		}
	}
	if failed == 0 || failed == g.NumNodes() {
		t.Fatalf("%d of %d ego nets over the limit: the test needs some of each", failed, g.NumNodes())
	}
	for i := 0; i < g.NumNodes(); i++ {
		egoCheck(t, g, egoOf(t, g, i, &buf), i)
	}
}

// newTestGraph is NewGraph for a test's own edges.
func newTestGraph(t testing.TB, n int, edges [][2]int) *Graph {
	t.Helper()
	g, err := NewGraph(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// egoOf is Ego for tests.
func egoOf(t testing.TB, g *Graph, i int, buf *EgoNet) *EgoNet {
	t.Helper()
	e, err := g.Ego(i, buf)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// egoReadTestdata reads fondue/testdata/NAME.edges.
func egoReadTestdata(t testing.TB, name string) *Graph {
	t.Helper()
	g, err := readEdgesFile("../testdata/" + name + ".edges")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Originals maps groups of local indices to the original nodes, in fresh
// slices that a later Ego on the same buffer does not change.
func TestEgoOriginals(t *testing.T) {
	g := newTestGraph(t, 6, [][2]int{{0, 2}, {0, 3}, {0, 5}, {2, 3}, {1, 4}, {1, 5}})
	var buf EgoNet
	e := egoOf(t, g, 0, &buf) // neighbours 2, 3, 5: locals 0, 1, 2
	got := e.Originals([][]int32{{2}, {0, 1}, {}})
	egoOf(t, g, 1, &buf)
	if want := [][]int32{{5}, {2, 3}, {}}; len(got) != 3 || !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) || len(got[2]) != 0 {
		t.Fatalf("Originals = %v, want %v", got, want)
	}
}
