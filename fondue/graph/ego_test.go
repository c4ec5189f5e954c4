package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// egoTestRandomGraph returns a G(n, p) graph plus a few hubs, so that both
// the marker scan and the binary-search path of Ego are exercised.
func egoTestRandomGraph(n int, p float64, hubs int, seed uint64) *Graph {
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
	return NewGraph(n, edges)
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
		g := egoTestRandomGraph(120, 0.05, 3, seed)
		var buf EgoNet
		for i := 0; i < g.NumNodes(); i++ {
			egoCheck(t, g, g.Ego(i, &buf), i)
		}
	}
	g := egoReadTestdata(t, "lesmis")
	var buf EgoNet
	for i := 0; i < g.NumNodes(); i++ {
		egoCheck(t, g, g.Ego(i, &buf), i)
	}
}

func TestEgoBothPaths(t *testing.T) {
	// Node 0 has degree 3 and neighbour 1 is a hub of degree 200: the
	// binary-search path must be taken for 1 and the scan path for 2 and 3.
	edges := [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {2, 3}}
	for j := 4; j < 204; j++ {
		edges = append(edges, [2]int{1, j})
	}
	g := NewGraph(204, edges)
	if g.Degree(1) <= egoBinaryFactor*g.Degree(0)*egoCeilLog2(g.Degree(1)) {
		t.Fatalf("test graph does not trigger the search path")
	}
	e := g.Ego(0, nil)
	egoCheck(t, g, e, 0)
	// Local: 0<->1, 1<->2 (original 1-2, 2-3); local 1 = original 2.
	if !slices.Equal(e.Adj, []int32{1, 0, 2, 1}) {
		t.Fatalf("Adj = %v", e.Adj)
	}
}

func TestEgoIsolatedAndLeaf(t *testing.T) {
	g := NewGraph(4, [][2]int{{0, 1}})
	e := g.Ego(3, nil)
	if e.NumNodes() != 0 || e.NumEdges() != 0 || len(e.Off) != 1 {
		t.Fatalf("isolated node: %+v", e)
	}
	e = g.Ego(0, e)
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
	big := egoTestRandomGraph(200, 0.05, 2, 9)
	small := egoReadTestdata(t, "karate")
	var buf EgoNet
	for i := 0; i < big.NumNodes(); i++ {
		big.Ego(i, &buf)
	}
	for i := 0; i < small.NumNodes(); i++ {
		egoCheck(t, small, small.Ego(i, &buf), i)
	}
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
