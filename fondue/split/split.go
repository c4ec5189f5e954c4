package split

import (
	"context"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/mcl"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// Names of the splitters of Splitters.
const (
	// MCL clusters the ego network (the node removed) with Markov
	// clustering: one new node per cluster. The paper's recommended splitter.
	MCL = "mcl"
	// FONDUE uses the sign vector behind the node's FONDUE score: two groups.
	FONDUE = "fondue"
)

// A Splitter proposes how to split a node: groups of its neighbours, each
// to become the neighbourhood of one node. Splitters returns this package's;
// package bench/research has more, for the splitting benchmark.
type Splitter interface {
	// Name is the splitter's name on the command line and in configuration.
	Name() string
	// NeedsEmbedding reports whether the splitter reads Input.Embedding,
	// and so cannot follow a baseline method.
	NeedsEmbedding() bool
	// NewWorker returns the function one goroutine of ProposeSplits calls
	// for its nodes, one at a time; it may keep scratch space between calls.
	NewWorker() Func
}

// Func returns groups of the neighbours of node (node indices; any
// order, empty groups allowed: ProposeSplits drops them and sorts the rest),
// or an error for input it cannot work with (an *OptionsError for invalid
// in.MCL). in is not nil.
type Func func(g *graph.Graph, in *Input, node int) ([][]int32, error)

// Input is what a splitter reads besides the graph and the node: the
// score behind the proposal and the options it was made with.
type Input struct {
	Embedding *cne.Embedding // the scores' embedding; nil after a baseline
	Prior     *cne.Prior     // the embedding's prior; may be nil
	CNE       cne.Options    // the options the embedding was fitted with (its sigmas)
	MCL       mcl.Options
	// Score are the options the scores were made with: the FONDUE
	// splitter reproduces the sign vector behind a node's score from them.
	Score score.Options
}

// Splitters returns the splitters of this package, the default
// (Default) first: ncut, mcl and fondue.
func Splitters() []Splitter {
	return []Splitter{ncutSplitter, mclSplitter, fondueSplitter}
}

var (
	ncutSplitter   = &builtinSplitter{name: NCut, split: splitNCut}
	mclSplitter    = &builtinSplitter{name: MCL, split: splitMCL}
	fondueSplitter = &builtinSplitter{name: FONDUE, needsEmbedding: true, split: splitFONDUE}
)

// Named returns the splitter of Splitters called name, the default
// (Default) for "", or nil for another name. It is where a splitter left
// unnamed becomes the default.
func Named(name string) Splitter {
	if name == "" {
		name = Default
	}
	return Find(Splitters(), name)
}

// Find returns the splitter called name among splitters, or nil.
func Find(splitters []Splitter, name string) Splitter {
	for _, s := range splitters {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// builtinSplitter is a splitter of this package: a function over the
// shared per-goroutine scratch space.
type builtinSplitter struct {
	name           string
	needsEmbedding bool
	split          func(g *graph.Graph, in *Input, i int, w *splitWorker) ([][]int32, error)
	// pairBudget, when set, replaces ncutPairBudget in the workers (tests
	// take the path above the budget on small graphs).
	pairBudget int
}

func (s *builtinSplitter) Name() string         { return s.name }
func (s *builtinSplitter) NeedsEmbedding() bool { return s.needsEmbedding }

func (s *builtinSplitter) NewWorker() Func {
	w := new(splitWorker)
	w.ncut.pairBudget = s.pairBudget
	return func(g *graph.Graph, in *Input, node int) ([][]int32, error) {
		return s.split(g, in, node, w)
	}
}

// splitWorker is one goroutine's scratch space for the built-in splitters.
type splitWorker struct {
	ego    graph.EgoNet
	mcl    mcl.Workspace
	bw     bisectWork
	ncut   ncutWork
	pieces score.Pieces
}

// Propose runs sp on each of nodes (indices of g) on up to workers
// goroutines and returns each node's groups, normalized (normalizeGroups);
// nodes without neighbours get none. The result follows the order of
// nodes and does not depend on workers; the first node's error (in that
// order) is returned.
func Propose(ctx context.Context, g *graph.Graph, in *Input, sp Splitter, nodes []int, workers int) ([][][]int32, error) {
	out := make([][][]int32, len(nodes))
	errs := make([]error, len(nodes))
	workers = min(parallel.WorkerCount(workers), max(1, len(nodes)))
	split := make([]Func, workers)
	for w := range split {
		split[w] = sp.NewWorker()
	}
	err := parallel.ForChunks(ctx, workers, len(nodes), func(w, k int) {
		if i := nodes[k]; g.Degree(i) > 0 {
			groups, err := split[w](g, in, i)
			out[k], errs[k] = normalizeGroups(groups), err
		}
	})
	if err == nil {
		err = parallel.FirstError(errs)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// splitFONDUE splits by the sign vector behind the FONDUE score.
func splitFONDUE(g *graph.Graph, in *Input, i int, _ *splitWorker) ([][]int32, error) {
	b := score.SignVector(g, in.Embedding, i, in.Score)
	return score.SignGroups(g.Neighbors(i), b), nil
}

// splitMCL clusters the ego net with MCL: one group per cluster.
func splitMCL(g *graph.Graph, in *Input, i int, w *splitWorker) ([][]int32, error) {
	e, err := g.Ego(i, &w.ego)
	if err != nil {
		return nil, err
	}
	clusters, err := w.mcl.Cluster(e, in.MCL)
	if err != nil {
		return nil, err
	}
	return e.Originals(clusters), nil
}

// normalizeGroups drops empty groups, sorts each, and orders them largest
// first (ties: smallest member first), so that the original node keeps the
// most relationships and the output is canonical.
func normalizeGroups(groups [][]int32) [][]int32 {
	out := groups[:0]
	for _, grp := range groups {
		if len(grp) > 0 {
			slices.Sort(grp)
			out = append(out, grp)
		}
	}
	slices.SortFunc(out, func(a, b []int32) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return int(a[0] - b[0])
	})
	return out
}
