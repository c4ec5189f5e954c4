package fondue

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// kgPair builds a small (:Author)-[:WROTE]->(:Paper) graph, alone and with
// context: each paper in a venue (v:) and with keywords (k:, whose ids sort
// between the authors' and the papers').
func kgPair(t *testing.T) (wrote, kg *graph.Graph, c *evidence.Context) {
	r := rng.SplitMix{S: 7}
	type edge struct{ u, v string }
	var authorship, context []edge
	for p := range 150 {
		// Two research groups of authors, a few shared names.
		base := 0
		if p%2 == 1 {
			base = 40
		}
		for range 1 + r.Intn(3) {
			authorship = append(authorship, edge{fmt.Sprintf("a:%d", base+int(r.Intn(50))), fmt.Sprintf("p:%d", p)})
		}
		context = append(context, edge{fmt.Sprintf("p:%d", p), fmt.Sprintf("v:%d", base/40*5+int(r.Intn(5)))})
		context = append(context, edge{fmt.Sprintf("p:%d", p), fmt.Sprintf("k:%d", r.Intn(40))})
	}
	var bw, bk graph.Builder
	for _, e := range authorship {
		bw.AddEdge(e.u, e.v)
		bk.AddEdge(e.u, e.v)
	}
	for _, e := range context {
		bk.AddEdge(e.u, e.v)
	}
	wrote, kg = bw.Build(), bk.Build()
	c = &evidence.Context{Kinds: []string{"Author", "Keyword", "Paper", "Venue"}, Kind: make([]int32, kg.NumNodes()),
		Properties: []evidence.Property{{Name: "year", Numeric: true, Number: make([]float64, kg.NumNodes())}}}
	for i := range kg.NumNodes() {
		c.Kind[i] = int32(strings.IndexByte("akpv", kg.Key(i)[0]))
		c.Properties[0].Number[i] = math.NaN()
		if c.Kind[i] == 2 {
			c.Properties[0].Number[i] = float64(1990 + i%20)
		}
	}
	return wrote, kg, c
}

func authors(g *graph.Graph) []bool {
	t := make([]bool, g.NumNodes())
	for i := range t {
		t[i] = strings.HasPrefix(g.Key(i), "a:")
	}
	return t
}

// With a Context, the scores and the embedding of the targets are those of
// the graph without the context nodes, to the last bit.
func TestContextScoresStructure(t *testing.T) {
	wrote, kg, c := kgPair(t)
	ctx := context.Background()
	a, err := Score(ctx, wrote, Options{Seed: 3, Targets: authors(wrote)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Score(ctx, kg, Options{Seed: 3, Targets: authors(kg), Context: c})
	if err != nil {
		t.Fatal(err)
	}
	for i := range kg.NumNodes() {
		j, ok := wrote.Index(kg.Key(i))
		if !ok {
			if !math.IsNaN(b.Scores[i]) || b.Entities[i] != 0 {
				t.Fatalf("context node %s: score %v, entities %d", kg.Key(i), b.Scores[i], b.Entities[i])
			}
			// Its row: the mean of its structural neighbours' rows.
			want, k := make([]float64, b.Embedding.Dim), 0
			for _, j := range kg.Neighbors(i) {
				if _, ok := wrote.Index(kg.Key(int(j))); ok {
					for d, x := range b.Embedding.Row(int(j)) {
						want[d] += x
					}
					k++
				}
			}
			for d := range want {
				if k > 0 {
					want[d] /= float64(k)
				}
			}
			if k == 0 || !slices.Equal(want, b.Embedding.Row(i)) {
				t.Fatalf("context node %s: embedding %v, want the mean of its %d structural neighbours %v", kg.Key(i), b.Embedding.Row(i), k, want)
			}
			continue
		}
		if math.Float64bits(a.Scores[j]) != math.Float64bits(b.Scores[i]) || math.Float64bits(a.Ambiguity[j]) != math.Float64bits(b.Ambiguity[i]) {
			t.Fatalf("%s: score %v, ambiguity %v with context; %v, %v without", kg.Key(i), b.Scores[i], b.Ambiguity[i], a.Scores[j], a.Ambiguity[j])
		}
		if !slices.Equal(a.Embedding.Row(j), b.Embedding.Row(i)) {
			t.Fatalf("%s: embedding differs", kg.Key(i))
		}
	}
}

// With a Context, the proposals, their reasons and the entity estimates do
// not depend on the number of workers; every group holds target neighbours.
func TestContextDeterministicAcrossWorkers(t *testing.T) {
	_, kg, c := kgPair(t)
	var ref *Result
	for _, w := range []int{1, 3} {
		res, err := Score(context.Background(), kg, Options{Seed: 2, Workers: w, Targets: authors(kg), Context: c,
			Split: SplitOptions{Splitter: split.Find(split.Splitters(), split.Default), Top: 20}})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Proposals {
			if len(p.Reasons) != len(p.Groups) {
				t.Fatalf("node %d: %d groups, %d reasons", p.Node, len(p.Groups), len(p.Reasons))
			}
			for _, grp := range p.Groups {
				for _, j := range grp {
					if !kg.HasEdge(p.Node, int(j)) {
						t.Fatalf("node %d: group member %d is no neighbour", p.Node, j)
					}
				}
			}
		}
		if ref == nil {
			ref = res
			continue
		}
		if !slices.Equal(res.Entities, ref.Entities) {
			t.Fatal("entities differ between 1 and 3 workers")
		}
		for k := range res.Proposals {
			if !slices.EqualFunc(res.Proposals[k].Groups, ref.Proposals[k].Groups, slices.Equal[[]int32]) ||
				!slices.EqualFunc(res.Proposals[k].Reasons, ref.Proposals[k].Reasons, slices.Equal[[]evidence.Reason]) {
				t.Fatalf("proposal %d differs between 1 and 3 workers", k)
			}
		}
	}
}

func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

func sameCheckpoint(a, b *cne.Checkpoint) bool {
	return slices.Equal(a.Keys, b.Keys) && sameBits(a.X, b.X) && sameBits(a.M, b.M) && sameBits(a.V, b.V) &&
		a.Step == b.Step && sameBits(a.History, b.History) && a.Peak == b.Peak
}

// A Context without context nodes (every node a target or a target's
// neighbour, as a pull of Author and Paper with only WROTE) scores as
// without one, to the last bit: scores, entities, embedding, checkpoint
// and proposals; with an evidence property, all but the entities and the
// proposals, which its merge may change.
func TestContextWithoutContextNodes(t *testing.T) {
	wrote, _, _ := kgPair(t)
	ctx := context.Background()
	c := &evidence.Context{Kinds: []string{"Author", "Paper"}, Kind: make([]int32, wrote.NumNodes())}
	for i := range c.Kind {
		c.Kind[i] = int32(strings.IndexByte("ap", wrote.Key(i)[0]))
	}
	opts := Options{Seed: 5, Targets: authors(wrote), KeepState: true,
		Split: SplitOptions{Splitter: split.Find(split.Splitters(), split.Default), Top: 10}}
	a, err := Score(ctx, wrote, opts)
	if err != nil {
		t.Fatal(err)
	}
	withCtx := func(c *evidence.Context) *Result {
		o := opts
		o.Context = c
		b, err := Score(ctx, wrote, o)
		if err != nil {
			t.Fatal(err)
		}
		if !sameBits(a.Scores, b.Scores) || !sameBits(a.Ambiguity, b.Ambiguity) || !sameBits(a.Embedding.X, b.Embedding.X) {
			t.Fatal("scores, ambiguity or embedding differ from the run without a Context")
		}
		if !sameCheckpoint(a.Checkpoint(wrote, opts), b.Checkpoint(wrote, o)) {
			t.Fatal("checkpoint differs from the run without a Context")
		}
		return b
	}
	b := withCtx(c)
	if !slices.Equal(a.Entities, b.Entities) {
		t.Fatal("entities differ from the run without a Context")
	}
	if len(a.Proposals) != len(b.Proposals) {
		t.Fatalf("%d proposals, %d without a Context", len(b.Proposals), len(a.Proposals))
	}
	for k := range a.Proposals {
		if a.Proposals[k].Node != b.Proposals[k].Node || !slices.EqualFunc(a.Proposals[k].Groups, b.Proposals[k].Groups, slices.Equal[[]int32]) {
			t.Fatalf("proposal %d differs from the run without a Context", k)
		}
	}
	// With an evidence property: the same scoring, then the merge.
	cp := *c
	cp.Properties = []evidence.Property{{Name: "year", Numeric: true, Number: make([]float64, wrote.NumNodes())}}
	for i := range cp.Properties[0].Number {
		cp.Properties[0].Number[i] = float64(1990 + i%20)
	}
	if p := withCtx(&cp); len(p.Proposals) != len(a.Proposals) || p.Proposals[0].Reasons == nil {
		t.Fatal("with an evidence property, the proposals carry no reasons")
	}
}

// With context nodes, the checkpoint covers the structural nodes by key,
// with the optimizer state (KeepState), and a warm start from it reuses
// every structural node and is deterministic.
func TestContextCheckpointWarmStart(t *testing.T) {
	wrote, kg, c := kgPair(t)
	ctx := context.Background()
	opts := Options{Seed: 4, Targets: authors(kg), Context: c, KeepState: true}
	res, err := Score(ctx, kg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ck := res.Checkpoint(kg, opts)
	if ck.Len() != wrote.NumNodes() || ck.M == nil || ck.V == nil || ck.Step == 0 {
		t.Fatalf("checkpoint of %d nodes (state %v), want the %d structural nodes with state", ck.Len(), ck.M != nil, wrote.NumNodes())
	}
	for _, k := range ck.Keys {
		if _, ok := wrote.Index(k); !ok {
			t.Fatalf("checkpoint holds context node %s", k)
		}
	}
	warm := opts
	warm.WarmStart, warm.WarmStartMinShare = ck, 1
	var ref *Result
	for range 2 {
		w, err := Score(ctx, kg, warm)
		if err != nil {
			t.Fatal(err)
		}
		if w.Warm == nil || w.Warm.Reused != wrote.NumNodes() || w.Warm.New != 0 || w.Warm.Dropped != 0 {
			t.Fatalf("warm start %+v, want all %d structural nodes reused", w.Warm, wrote.NumNodes())
		}
		if w.CNE.Epochs >= res.CNE.Epochs {
			t.Fatalf("warm start took %d epochs, the cold run %d", w.CNE.Epochs, res.CNE.Epochs)
		}
		if ref != nil && (!sameBits(ref.Scores, w.Scores) || !sameCheckpoint(ref.Checkpoint(kg, warm), w.Checkpoint(kg, warm))) {
			t.Fatal("two warm starts from one checkpoint differ")
		}
		ref = w
	}
	// A checkpoint of the whole graph (saved without a Context): its
	// context nodes are neither reused nor dropped.
	full := cne.NewCheckpoint(kg, res.Embedding, opts.CNE)
	warm.WarmStart = full
	w, err := Score(ctx, kg, warm)
	if err != nil {
		t.Fatal(err)
	}
	if w.Warm.Reused != wrote.NumNodes() || w.Warm.Dropped != 0 {
		t.Fatalf("warm start from a whole-graph checkpoint %+v, want %d reused, none dropped", w.Warm, wrote.NumNodes())
	}
}

// StructureSize counts the structural graph Score builds: with the
// authors as targets, the graph without its venues and keywords.
func TestStructureSize(t *testing.T) {
	wrote, kg, _ := kgPair(t)
	if n, m := StructureSize(kg, authors(kg)); n != wrote.NumNodes() || m != wrote.NumEdges() {
		t.Fatalf("structure of %d nodes, %d links; want %d, %d", n, m, wrote.NumNodes(), wrote.NumEdges())
	}
	if n, m := StructureSize(kg, nil); n != kg.NumNodes() || m != kg.NumEdges() {
		t.Fatalf("every node a target: %d nodes, %d links; want the graph's %d, %d", n, m, kg.NumNodes(), kg.NumEdges())
	}
}

// CountTargets counts the chosen nodes and those of them with a
// neighbour: on a path 0-1-2 beside two isolated nodes 3 and 4.
func TestCountTargets(t *testing.T) {
	g := testkit.NewGraph(5, [][2]int{{0, 1}, {1, 2}})
	for _, c := range []struct {
		targets          []bool
		selected, linked int
	}{
		{nil, 5, 3},
		{[]bool{true, false, false, true, true}, 3, 1},
		{[]bool{false, false, false, true, true}, 2, 0},
		{make([]bool, 5), 0, 0},
	} {
		if s, l := CountTargets(g, c.targets); s != c.selected || l != c.linked {
			t.Errorf("CountTargets(%v) = %d, %d; want %d, %d", c.targets, s, l, c.selected, c.linked)
		}
	}
}
