package split_test

// Tests run on every splitter, fondue's and fondue/research's (which
// imports fondue and so cannot be used from fondue's own tests).

import (
	"context"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/eval"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/research"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

func allSplitters() []split.Splitter {
	return append(split.Splitters(), research.Splitters()...)
}

// propose runs one splitter on one node; with an embedding, under a
// fitted prior as after Score.
func propose(t *testing.T, g *graph.Graph, emb *cne.Embedding, sp split.Splitter, node int) [][]int32 {
	t.Helper()
	res := &fondue.Result{Embedding: emb}
	if emb != nil {
		p, err := cne.FitPrior(context.Background(), g, cne.PriorOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res.Prior = p
	}
	props, err := fondue.ProposeSplits(context.Background(), g, res, []int{node},
		fondue.Options{Seed: 1, Workers: 2, Split: fondue.SplitOptions{Splitter: sp}})
	if err != nil {
		t.Fatal(err)
	}
	return props[0].Groups
}

// Two merged cliques must come apart, with every splitter, with and without
// the embedding for the splitters that do not need it.
func TestSplittersSeparateMergedCliques(t *testing.T) {
	for _, sizes := range [][2]int{{5, 5}, {8, 3}, {12, 2}} {
		g, emb := split.TwoCliques(sizes[0], sizes[1])
		want := [][]int32{split.RangeGroup(1, sizes[0]), split.RangeGroup(sizes[0]+1, sizes[0]+sizes[1])}
		for _, sp := range allSplitters() {
			if (sp.Name() == split.FONDUE || sp.Name() == research.Posterior) && sizes[1] == 2 {
				// Known weaknesses of two research candidates: the Rayleigh
				// quotient, and normalized cut on posteriors alone, prefer
				// other splits of very unequal cliques.
				continue
			}
			got := propose(t, g, emb, sp, 0)
			if !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
				t.Errorf("%s, cliques %v: groups %v, want %v", sp.Name(), sizes, got, want)
			}
			if !sp.NeedsEmbedding() {
				if got := propose(t, g, nil, sp, 0); !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
					t.Errorf("%s without embedding, cliques %v: groups %v, want %v", sp.Name(), sizes, got, want)
				}
			}
		}
	}
}

// Splitters are deterministic and do not depend on the number of workers.
func TestSplittersDeterministicAcrossWorkers(t *testing.T) {
	g := testkit.ReadGraph(t, "polbooks")
	c, err := eval.Contract(g, 0.1, 3)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fondue.Score(context.Background(), c.Graph, fondue.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var nodes []int
	for i := range c.Graph.NumNodes() {
		nodes = append(nodes, i)
	}
	for _, sp := range allSplitters() {
		var first []fondue.Proposal
		for _, workers := range []int{1, 3, 1} {
			props, err := fondue.ProposeSplits(context.Background(), c.Graph, res, nodes,
				fondue.Options{Seed: 3, Workers: workers, Split: fondue.SplitOptions{Splitter: sp}})
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = props
				for k, p := range props {
					if !isPartition(p.Groups, c.Graph.Neighbors(nodes[k])) {
						t.Fatalf("%s: node %d: groups %v are not a partition of its neighbours", sp.Name(), nodes[k], p.Groups)
					}
				}
				continue
			}
			for k := range props {
				if !slices.EqualFunc(props[k].Groups, first[k].Groups, slices.Equal[[]int32]) {
					t.Fatalf("%s: node %d: %d workers gave %v, 1 gave %v", sp.Name(), nodes[k], workers, props[k].Groups, first[k].Groups)
				}
			}
		}
	}
}

func isPartition(groups [][]int32, nb []int32) bool {
	var all []int32
	for _, g := range groups {
		if len(g) == 0 {
			return false
		}
		all = append(all, g...)
	}
	slices.Sort(all)
	return slices.Equal(all, nb)
}
