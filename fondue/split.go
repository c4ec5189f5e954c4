package fondue

import (
	"context"
	"fmt"
	"slices"
)

// Names of the splitters of Splitters.
const (
	// SplitMCL clusters the ego network (the node removed) with Markov
	// clustering: one new node per cluster. The paper's recommended splitter.
	SplitMCL = "mcl"
	// SplitFONDUE uses the sign vector behind the node's FONDUE score: two groups.
	SplitFONDUE = "fondue"
)

// A Splitter proposes how to split a node: groups of its neighbours, each
// to become the neighbourhood of one node. Splitters returns this package's;
// package fondue/research has more, for the splitting benchmark.
type Splitter interface {
	// Name is the splitter's name on the command line and in configuration.
	Name() string
	// NeedsEmbedding reports whether the splitter reads SplitInput.Embedding,
	// and so cannot follow a baseline method.
	NeedsEmbedding() bool
	// NewWorker returns the function one goroutine of ProposeSplits calls
	// for its nodes, one at a time; it may keep scratch space between calls.
	NewWorker() SplitFunc
}

// SplitFunc returns groups of the neighbours of node (node indices; any
// order, empty groups allowed: ProposeSplits drops them and sorts the rest),
// or an error for input it cannot work with (an *OptionsError for invalid
// in.MCL). in is not nil.
type SplitFunc func(g *Graph, in *SplitInput, node int) ([][]int32, error)

// SplitInput is what a splitter reads besides the graph and the node: the
// score behind the proposal and the options it was made with.
type SplitInput struct {
	Embedding *Embedding // the scores' embedding; nil after a baseline
	Prior     *Prior     // the embedding's prior; may be nil
	CNE       CNEOptions // the options the embedding was fitted with (its sigmas)
	MCL       MCLOptions
	// The FONDUE splitter reproduces the sign vector behind the score
	// from the options it was scored with.
	Seed         uint64
	RandomSplits int
	Unnormalized bool
	Polish       bool
}

// Splitters returns the splitters of this package, the default
// (DefaultSplitter) first: ncut, mcl and fondue.
func Splitters() []Splitter {
	return []Splitter{ncutSplitter, mclSplitter, fondueSplitter}
}

var (
	ncutSplitter   = &builtinSplitter{name: SplitNCut, split: splitNCut}
	mclSplitter    = &builtinSplitter{name: SplitMCL, split: splitMCL}
	fondueSplitter = &builtinSplitter{name: SplitFONDUE, needsEmbedding: true, split: splitFONDUE}
)

// FindSplitter returns the splitter called name among splitters, or nil.
func FindSplitter(splitters []Splitter, name string) Splitter {
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
	split          func(g *Graph, in *SplitInput, i int, w *splitWorker) ([][]int32, error)
}

func (s *builtinSplitter) Name() string         { return s.name }
func (s *builtinSplitter) NeedsEmbedding() bool { return s.needsEmbedding }

func (s *builtinSplitter) NewWorker() SplitFunc {
	w := new(splitWorker)
	return func(g *Graph, in *SplitInput, node int) ([][]int32, error) {
		return s.split(g, in, node, w)
	}
}

// splitWorker is one goroutine's scratch space for the built-in splitters.
type splitWorker struct {
	ego    EgoNet
	mcl    MCLWorkspace
	bw     bisectWork
	ncut   ncutWork
	pieces piecesWork
}

// Proposal says how to split one node: each group of neighbours becomes the
// neighbourhood of one node. Groups[0] stays with the original node; each
// further group moves to a new node.
type Proposal struct {
	Node      int       // node index
	Groups    [][]int32 // neighbour node indices, each group sorted; largest group first
	Score     float64   // the node's raw score, when known
	Ambiguity float64   // the node's ambiguity percentile, when known
}

// ProposeSplits proposes a split of each of the given nodes with
// opts.Split.Splitter (nil: the default, DefaultSplitter). res is the score
// of g the proposals follow, and opts the options it was scored with: the
// splitters that use the embedding read res.Embedding (and res.Prior, when
// set); the others accept a nil res. The proposals carry the nodes' scores
// and ambiguities from res. Nodes without neighbours get no groups. The
// result follows the order of nodes and does not depend on opts.Workers.
func ProposeSplits(ctx context.Context, g *Graph, res *Result, nodes []int, opts Options) ([]Proposal, error) {
	sp := opts.Split.Splitter
	if sp == nil {
		sp = Splitters()[0]
	}
	if res == nil {
		res = &Result{}
	}
	emb := res.Embedding
	if sp.NeedsEmbedding() && emb == nil {
		return nil, &OptionsError{Msg: fmt.Sprintf("splitter %q needs an embedding: score with method %q or %q", sp.Name(), MethodCombined, MethodFONDUE)}
	}
	if emb != nil && emb.Len() != g.NumNodes() {
		return nil, fmt.Errorf("embedding has %d rows for %d nodes", emb.Len(), g.NumNodes())
	}
	if res.Prior != nil && len(res.Prior.Lambda) != g.NumNodes() {
		return nil, fmt.Errorf("prior has %d nodes, graph %d", len(res.Prior.Lambda), g.NumNodes())
	}
	for _, i := range nodes {
		if i < 0 || i >= g.NumNodes() {
			return nil, fmt.Errorf("node index %d out of range [0,%d)", i, g.NumNodes())
		}
	}
	in := &SplitInput{Embedding: emb, Prior: res.Prior, CNE: opts.CNE, MCL: opts.Split.MCL, Seed: opts.Seed,
		RandomSplits: opts.RandomSplits, Unnormalized: opts.Unnormalized, Polish: opts.Polish}
	groups, err := proposeGroups(ctx, g, in, sp, nodes, opts.Workers)
	if err != nil {
		return nil, err
	}
	out := make([]Proposal, len(nodes))
	for k, i := range nodes {
		out[k] = Proposal{Node: i, Groups: groups[k]}
		if i < len(res.Scores) {
			out[k].Score = res.Scores[i]
		}
		if i < len(res.Ambiguity) {
			out[k].Ambiguity = res.Ambiguity[i]
		}
	}
	return out, nil
}

// proposeGroups runs sp on each of nodes (indices of g) on up to workers
// goroutines and returns each node's groups, normalized (normalizeGroups);
// nodes without neighbours get none. The result follows the order of
// nodes and does not depend on workers; the first node's error (in that
// order) is returned.
func proposeGroups(ctx context.Context, g *Graph, in *SplitInput, sp Splitter, nodes []int, workers int) ([][][]int32, error) {
	out := make([][][]int32, len(nodes))
	errs := make([]error, len(nodes))
	workers = min(workerCount(workers), max(1, len(nodes)))
	split := make([]SplitFunc, workers)
	for w := range split {
		split[w] = sp.NewWorker()
	}
	err := forChunks(ctx, workers, len(nodes), func(w, k int) {
		if i := nodes[k]; g.Degree(i) > 0 {
			groups, err := split[w](g, in, i)
			out[k], errs[k] = normalizeGroups(groups), err
		}
	})
	if err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// splitFONDUE splits by the sign vector behind the FONDUE score.
func splitFONDUE(g *Graph, in *SplitInput, i int, _ *splitWorker) ([][]int32, error) {
	b := fondueSplit(g, in.Embedding, i, signParams{T: randomSplits(in.RandomSplits), Normalize: !in.Unnormalized, Polish: in.Polish, Seed: in.Seed})
	return signGroups(g.Neighbors(i), b), nil
}

// signGroups turns a sign vector over nb into two groups (+1, −1).
func signGroups(nb []int32, b []int8) [][]int32 {
	var plus, minus []int32
	for k, j := range nb {
		if b[k] > 0 {
			plus = append(plus, j)
		} else {
			minus = append(minus, j)
		}
	}
	return [][]int32{plus, minus}
}

// splitMCL clusters the ego net with MCL: one group per cluster.
func splitMCL(g *Graph, in *SplitInput, i int, w *splitWorker) ([][]int32, error) {
	e := g.Ego(i, &w.ego)
	clusters, err := w.mcl.Cluster(e, in.MCL)
	if err != nil {
		return nil, err
	}
	return mclGroups(e, clusters), nil
}

// mclGroups maps clusters of local indices to fresh groups of original indices.
func mclGroups(e *EgoNet, clusters [][]int32) [][]int32 {
	groups := make([][]int32, len(clusters))
	for c, cl := range clusters {
		grp := make([]int32, len(cl))
		for k, local := range cl {
			grp[k] = e.Nodes[local]
		}
		groups[c] = grp
	}
	return groups
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
