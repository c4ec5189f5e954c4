// Package splittest is the conformance suite of split.Splitter: fondue's
// splitters and the bench's research candidates all pass it.
package splittest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// Options says what a splitter is known not to do.
type Options struct {
	// SkipUnequalCliques skips the merged cliques of sizes 12 and 2, which
	// some candidates split elsewhere.
	SkipUnequalCliques bool
}

// Run checks sp: two merged cliques come apart, with and (when sp does
// not need one) without an embedding; on a contracted polbooks (a fixture) every
// node's groups partition its neighbours, the same for 1 and 3 workers.
func Run(t *testing.T, sp split.Splitter, o Options) {
	t.Run("MergedCliques", func(t *testing.T) { mergedCliques(t, sp, o) })
	t.Run("DeterministicAcrossWorkers", func(t *testing.T) { acrossWorkers(t, sp) })
}

// propose runs sp on one node; with an embedding, under a fitted prior as
// after Score.
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

func mergedCliques(t *testing.T, sp split.Splitter, o Options) {
	for _, sizes := range [][2]int{{5, 5}, {8, 3}, {12, 2}} {
		if o.SkipUnequalCliques && sizes[1] == 2 {
			continue
		}
		t.Run(fmt.Sprintf("%d+%d", sizes[0], sizes[1]), func(t *testing.T) {
			g, x := testkit.TwoCliques(sizes[0], sizes[1])
			emb := &cne.Embedding{Dim: 2, X: x}
			want := [][]int32{testkit.Range(1, sizes[0]), testkit.Range(sizes[0]+1, sizes[0]+sizes[1])}
			if got := propose(t, g, emb, sp, 0); !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
				t.Errorf("got groups %v, want %v", got, want)
			}
			if !sp.NeedsEmbedding() {
				if got := propose(t, g, nil, sp, 0); !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
					t.Errorf("without embedding: got groups %v, want %v", got, want)
				}
			}
		})
	}
}

func acrossWorkers(t *testing.T, sp split.Splitter) {
	// polbooks with 10% of its nodes merged into pairs: bench/eval's
	// Contract(polbooks, 0.1, 3), which its TestContractedFixture checks.
	g := testkit.ReadGraph(t, "polbooks-contracted")
	res, err := fondue.Score(context.Background(), g, fondue.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var nodes []int
	for i := range g.NumNodes() {
		nodes = append(nodes, i)
	}
	var first []fondue.Proposal
	for _, workers := range []int{1, 3, 1} {
		props, err := fondue.ProposeSplits(context.Background(), g, res, nodes,
			fondue.Options{Seed: 3, Workers: workers, Split: fondue.SplitOptions{Splitter: sp}})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = props
			for k, p := range props {
				if !isPartition(p.Groups, g.Neighbors(nodes[k])) {
					t.Fatalf("node %d: groups %v are not a partition of its neighbours", nodes[k], p.Groups)
				}
			}
			continue
		}
		for k := range props {
			if !slices.EqualFunc(props[k].Groups, first[k].Groups, slices.Equal[[]int32]) {
				t.Fatalf("node %d: %d workers gave %v, 1 gave %v", nodes[k], workers, props[k].Groups, first[k].Groups)
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
