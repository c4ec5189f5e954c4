package fondue

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
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
			if !math.IsNaN(b.Scores[i]) || b.Entities[i] != 0 || slices.ContainsFunc(b.Embedding.Row(i), func(x float64) bool { return x != 0 }) {
				t.Fatalf("context node %s: score %v, entities %d, embedding %v", kg.Key(i), b.Scores[i], b.Entities[i], b.Embedding.Row(i))
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
