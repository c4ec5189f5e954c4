package graph

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/errs"
)

func TestGraphCSR(t *testing.T) {
	var b Builder
	b.AddIntEdge(5, 1)
	b.AddIntEdge(1, 9)
	b.AddIntEdge(9, 5)
	b.AddIntEdge(9, 5)
	b.AddIntNode(42)
	g := b.Build()
	if g.NumNodes() != 4 || g.NumEdges() != 3 || g.Duplicates() != 1 {
		t.Fatalf("nodes %d edges %d dups %d", g.NumNodes(), g.NumEdges(), g.Duplicates())
	}
	for i := 0; i < g.NumNodes(); i++ {
		nb := g.Neighbors(i)
		for k := 1; k < len(nb); k++ {
			if nb[k] <= nb[k-1] {
				t.Fatalf("row %d not strictly sorted: %v", i, nb)
			}
		}
		for _, j := range nb {
			if !g.HasEdge(int(j), i) {
				t.Fatalf("edge %d-%d not symmetric", i, j)
			}
		}
	}
	// Nodes are numbered in key order: 1, 5, 9, 42.
	if !g.IntKeys() || g.Key(3) != "42" || g.Degree(3) != 0 || g.Key(0) != "1" {
		t.Fatalf("key/degree of isolated node: %q %d", g.Key(3), g.Degree(3))
	}
	// The same graph added in another order has the same CSR.
	var b2 Builder
	b2.AddIntNode(42)
	b2.AddIntEdge(9, 5)
	b2.AddIntEdge(5, 1)
	b2.AddIntEdge(9, 1)
	g2 := b2.Build()
	if !slices.Equal(g.adj, g2.adj) || !slices.Equal(g.off, g2.off) {
		t.Fatalf("insertion order changed the graph: %v vs %v", g.adj, g2.adj)
	}
	if _, ok := g.Index("007"); ok {
		t.Fatal(`Index("007") found a node`)
	}
	if g.MaxDegree() != 2 {
		t.Fatalf("max degree %d", g.MaxDegree())
	}
}

func TestNewGraphMatchesBuilder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 60
	var edges [][2]int
	var b Builder
	for i := 0; i < n; i++ {
		b.AddIntNode(int64(i))
	}
	for k := 0; k < 400; k++ {
		e := [2]int{r.IntN(n), r.IntN(n)}
		edges = append(edges, e)
		b.AddIntEdge(int64(e[0]), int64(e[1]))
	}
	g1, g2 := newTestGraph(t, n, edges), b.Build()
	want := map[[2]int]bool{}
	for _, e := range edges {
		if e[0] != e[1] {
			want[[2]int{min(e[0], e[1]), max(e[0], e[1])}] = true
		}
	}
	for _, g := range []*Graph{g1, g2} {
		if g.NumEdges() != len(want) {
			t.Fatalf("%d edges, want %d", g.NumEdges(), len(want))
		}
		for e := range want {
			if !g.HasEdge(e[0], e[1]) {
				t.Fatalf("missing edge %v", e)
			}
		}
	}
}

// NewGraph refuses, with an *OptionsError naming the fault, a negative node
// count and every edge with an endpoint out of range.
func TestNewGraphRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		n     int
		edges [][2]int
		msg   string
	}{
		{-1, nil, "-1 nodes"},
		{3, [][2]int{{0, 1}, {1, 3}}, "edge 1, [1 3], out of range [0,3)"},
		{3, [][2]int{{-1, 2}}, "edge 0, [-1 2], out of range"},
		{0, [][2]int{{0, 0}}, "out of range [0,0)"},
	} {
		g, err := NewGraph(c.n, c.edges)
		var oe *errs.OptionsError
		if !errors.As(err, &oe) || g != nil || !strings.Contains(err.Error(), c.msg) {
			t.Fatalf("NewGraph(%d, %v) = %v, %v; want an *OptionsError saying %q", c.n, c.edges, g, err, c.msg)
		}
	}
	if g, err := NewGraph(0, nil); err != nil || g.NumNodes() != 0 {
		t.Fatalf("empty graph: %v, %v", g, err)
	}
}

// WithKeys refuses keys that are not one per node or that repeat (as
// integers or as strings), and keeps the structure with valid ones.
func TestWithKeys(t *testing.T) {
	g := newTestGraph(t, 3, [][2]int{{0, 1}, {1, 2}})
	for _, c := range []struct {
		keys []string
		msg  string
	}{
		{[]string{"a", "b"}, "2 keys for 3 nodes"},
		{[]string{"a", "b", "c", "d"}, "4 keys for 3 nodes"},
		{[]string{"a", "b", "a"}, `key "a" of node 2 repeats`},
		{[]string{"7", "8", "7"}, `key "7" of node 2 repeats`},
		{[]string{"7", "x", "7"}, `key "7" of node 2 repeats`},
	} {
		h, err := g.WithKeys(c.keys)
		var oe *errs.OptionsError
		if !errors.As(err, &oe) || h != nil || !strings.Contains(err.Error(), c.msg) {
			t.Fatalf("WithKeys(%q) = %v, %v; want an *OptionsError saying %q", c.keys, h, err, c.msg)
		}
	}
	h, err := g.WithKeys([]string{"c", "007", "7"})
	if err != nil {
		t.Fatal(err)
	}
	if h.NumEdges() != 2 || !h.HasEdge(0, 1) || !h.HasEdge(1, 2) || h.Key(1) != "007" {
		t.Fatalf("keyed graph: %d edges, key(1) %q", h.NumEdges(), h.Key(1))
	}
	if i, ok := h.Index("7"); !ok || i != 2 {
		t.Fatalf(`Index("7") = %d, %v`, i, ok)
	}
}

// AddIndexEdge builds the graph AddIntEdge builds, for nodes added in any
// order (the indices are those AddIntNode returned), with self-loops
// counted; an index of no node panics.
func TestAddIndexEdgeMatchesAddIntEdge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	keys := r.Perm(80)
	var a, b Builder
	idx := map[int64]int32{}
	for _, k := range keys {
		a.AddIntNode(int64(k * 7))
		idx[int64(k*7)] = b.AddIntNode(int64(k * 7))
	}
	for range 500 {
		u, v := int64(keys[r.IntN(80)]*7), int64(keys[r.IntN(80)]*7)
		a.AddIntEdge(u, v)
		b.AddIndexEdge(idx[u], idx[v])
	}
	ga, gb := a.Build(), b.Build()
	if ga.NumNodes() != gb.NumNodes() || ga.NumEdges() != gb.NumEdges() || ga.SelfLoops() != gb.SelfLoops() || ga.Duplicates() != gb.Duplicates() {
		t.Fatalf("AddIndexEdge: %d nodes, %d edges, %d loops; AddIntEdge: %d, %d, %d", gb.NumNodes(), gb.NumEdges(), gb.SelfLoops(), ga.NumNodes(), ga.NumEdges(), ga.SelfLoops())
	}
	for i := range ga.NumNodes() {
		if ga.Key(i) != gb.Key(i) || !slices.Equal(ga.Neighbors(i), gb.Neighbors(i)) {
			t.Fatalf("node %d differs", i)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("AddIndexEdge with an index of no node did not panic")
		}
	}()
	var c Builder
	c.AddIntNode(1)
	c.AddIndexEdge(0, 1)
}

// TestWithKeysOf checks WithKeysOf against WithKeys with the same keys:
// every key, every lookup (of the parent's keys and of absent ones) and
// the kind of keys, for parents with string, integer and index keys.
func TestWithKeysOf(t *testing.T) {
	var mixed, ints Builder
	for _, k := range []string{"p0", "3", "a", "7", "p1", "12"} {
		mixed.AddNode(k)
	}
	for _, k := range []int64{40, 3, 17, 9, 22} {
		ints.AddIntNode(k)
	}
	plain, err := NewGraph(5, [][2]int{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := NewGraph(3, [][2]int{{0, 2}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		parent *Graph
		nodes  []int32
	}{
		{"strings", mixed.Build(), []int32{0, 2, 4}},
		{"strings all integers", nil, []int32{0, 1, 2}}, // "12", "3", "7" of the mixed graph
		{"integers", ints.Build(), []int32{1, 2, 4}},
		{"indices", plain, []int32{0, 3, 4}},
	} {
		if c.parent == nil {
			var b Builder
			for _, k := range []string{"p0", "3", "a", "7", "p1", "12"} {
				b.AddNode(k)
			}
			c.parent = b.Build() // "12", "3", "7", "a", "p0", "p1"
		}
		index := make([]int32, c.parent.NumNodes())
		for i := range index {
			index[i] = -1
		}
		keys := make([]string, len(c.nodes))
		for a, i := range c.nodes {
			index[i], keys[a] = int32(a), c.parent.Key(int(i))
		}
		want, err := sub.WithKeys(keys)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sub.WithKeysOf(c.parent, c.nodes, index)
		if err != nil {
			t.Fatal(err)
		}
		if got.IntKeys() != want.IntKeys() {
			t.Errorf("%s: IntKeys %v, want %v", c.name, got.IntKeys(), want.IntKeys())
		}
		for a := range c.nodes {
			if got.Key(a) != want.Key(a) {
				t.Errorf("%s: key of %d %q, want %q", c.name, a, got.Key(a), want.Key(a))
			}
		}
		probes := []string{"zz", "-1", "99", "03"}
		for i := range c.parent.NumNodes() {
			probes = append(probes, c.parent.Key(i))
		}
		for _, k := range probes {
			gi, gok := got.Index(k)
			wi, wok := want.Index(k)
			if gok != wok || (wok && gi != wi) {
				t.Errorf("%s: Index(%q) = %d, %v, want %d, %v", c.name, k, gi, gok, wi, wok)
			}
		}
	}
	if _, err := sub.WithKeysOf(plain, []int32{0, 3, 4}, []int32{0, -1, -1, 2, 1}); err == nil {
		t.Error("an index that does not invert the nodes: no error")
	}
}
