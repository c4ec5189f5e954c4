// Package testkit holds the test graphs and helpers that the tests of
// several engine packages share: the graphs of fondue/testdata, random and
// planted graphs, cliques and ego networks. It is imported by tests only.
package testkit

import (
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// Path returns the path of name in fondue/testdata.
func Path(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", name)
}

// ReadEdgesFile reads an edge list of fondue/testdata, given as
// "testdata/NAME.edges".
func ReadEdgesFile(path string) (*graph.Graph, error) {
	g, _, err := edgelist.ReadFile(Path(filepath.Base(path)), edgelist.HeaderAuto)
	return g, err
}

// ReadGraph reads fondue/testdata/NAME.edges, failing t on an error.
func ReadGraph(t testing.TB, name string) *graph.Graph {
	t.Helper()
	g, err := ReadEdgesFile(name + ".edges")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// RandomRows returns n rows of d N(0,1) values drawn from seed, row-major:
// a random embedding.
func RandomRows(n, d int, seed uint64) []float64 {
	r := rng.SplitMix{S: seed}
	x := make([]float64, n*d)
	for k := range x {
		x[k] = r.Norm()
	}
	return x
}

// CommunityGraph returns n nodes in communities of 60, each node linked
// to two of its community and half of them to one random node, node 0 a
// hub of hubDeg more links, and the last two nodes isolated.
func CommunityGraph(n, hubDeg int, seed uint64) *graph.Graph {
	r := rng.SplitMix{S: seed}
	var e [][2]int
	live := n - 2
	for i := 0; i < live; i++ {
		lo := i / 60 * 60
		size := min(60, live-lo)
		for k := 0; k < 2; k++ {
			e = append(e, [2]int{i, lo + int(r.Intn(uint32(size)))})
		}
		if r.Intn(2) == 0 {
			e = append(e, [2]int{i, int(r.Intn(uint32(live)))})
		}
	}
	for k := 0; k < hubDeg; k++ {
		e = append(e, [2]int{0, 1 + int(r.Intn(uint32(live-1)))})
	}
	return NewGraph(n, e)
}

// RandomGraph returns G(n, p) with hubs more nodes (0..hubs-1) linked to
// each other node with probability 0.8.
func RandomGraph(n int, p float64, hubs int, seed uint64) *graph.Graph {
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

// Ego returns the ego network of a centre linked to nodes 0..n-1, which
// are linked by edges.
func Ego(n int, edges [][2]int) *graph.EgoNet {
	all := slices.Clone(edges)
	for k := 0; k < n; k++ {
		all = append(all, [2]int{n, k})
	}
	e, err := NewGraph(n+1, all).Ego(n, nil)
	if err != nil {
		panic(err)
	}
	return e
}

// NewGraph is graph.NewGraph for a test's own graphs, whose edges are in
// range: an error is a broken test, and panics.
func NewGraph(n int, edges [][2]int) *graph.Graph {
	g, err := graph.NewGraph(n, edges)
	if err != nil {
		panic(err)
	}
	return g
}

// Clique returns the edges of a clique on nodes.
func Clique(nodes ...int) [][2]int {
	var e [][2]int
	for a := range nodes {
		for b := a + 1; b < len(nodes); b++ {
			e = append(e, [2]int{nodes[a], nodes[b]})
		}
	}
	return e
}

// AppendHubClique appends the edges of a clique on nodes lo..hi, each also
// linked to node 0.
func AppendHubClique(e [][2]int, lo, hi int) [][2]int {
	for x := lo; x <= hi; x++ {
		for y := x + 1; y <= hi; y++ {
			e = append(e, [2]int{x, y})
		}
		e = append(e, [2]int{0, x})
	}
	return e
}

// TwoCliques returns a graph where node 0 is adjacent to every member of two
// cliques of sizes a and b (1..a and a+1..a+b) that share no other link, and
// the rows of a 2-dimensional embedding that puts clique members near ±e1
// and node 0 at the origin.
func TwoCliques(a, b int) (*graph.Graph, []float64) {
	e := AppendHubClique(AppendHubClique(nil, 1, a), a+1, a+b)
	n := a + b + 1
	x := make([]float64, 2*n)
	for v := 1; v < n; v++ {
		s := 1.0
		if v > a {
			s = -1
		}
		x[2*v] = s + 0.01*float64(v%7)
		x[2*v+1] = 0.01 * float64(v%5)
	}
	return NewGraph(n, e), x
}

// Range returns the nodes lo..hi.
func Range(lo, hi int) []int32 {
	var g []int32
	for x := lo; x <= hi; x++ {
		g = append(g, int32(x))
	}
	return g
}
