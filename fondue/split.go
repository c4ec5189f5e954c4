package fondue

import (
	"context"
	"fmt"
	"slices"
)

// Splitters that ProposeSplits accepts.
const (
	// SplitMCL clusters the ego network (the node removed) with Markov
	// clustering: one new node per cluster. The paper's recommended splitter.
	SplitMCL = "mcl"
	// SplitFONDUE uses the sign vector behind the node's FONDUE score: two groups.
	SplitFONDUE = "fondue"
)

// Splitters lists the splitters ProposeSplits accepts, the default first.
var Splitters = []string{SplitMCL, SplitFONDUE}

// splitterSpec describes how a splitter works: what it needs, and its
// function, which returns the groups of neighbours (original indices) of
// node i. Splitters live in split_*.go files and register here.
type splitterSpec struct {
	needsEmbedding bool
	needsPrior     bool // uses SplitConfig.Prior when set (optional)
	split          func(g *Graph, emb *Embedding, i int, cfg *SplitConfig, w *splitWorker) [][]int32
}

var splitterSpecs = map[string]splitterSpec{
	SplitMCL:    {split: splitMCL},
	SplitFONDUE: {needsEmbedding: true, split: splitFONDUE},
}

// SplitterNeedsEmbedding reports whether a splitter needs the CNE embedding
// (and so a FONDUE score): such splitters cannot follow a baseline method.
func SplitterNeedsEmbedding(name string) bool { return splitterSpecs[name].needsEmbedding }

// splitWorker is one goroutine's scratch space for ProposeSplits.
type splitWorker struct {
	ego  EgoNet
	mcl  MCLWorkspace
	bw   bisectWork
	aff  []float64 // dense affinity among the neighbours
	pos  []float64 // neighbour positions, for k-means
	ncut ncutWork
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

// SplitConfig configures ProposeSplits.
type SplitConfig struct {
	Method       string // one of Splitters
	Seed         uint64 // as given to Score: the FONDUE splitter reproduces the score's sign vector
	RandomSplits int    // as given to Score
	Unnormalized bool   // as given to Score
	Polish       bool   // as given to Score
	Workers      int
	MCL          MCLOptions
	// Prior is the degree prior behind emb (Result.Prior), and Sigma1 and
	// Sigma2 the CNE spreads it was fitted with (0: the defaults 1 and 2).
	// Splitters that use CNE posteriors read them; Score sets them. Without
	// a prior, posteriors use a flat prior (distances only).
	Prior          *Prior
	Sigma1, Sigma2 float64
}

// ProposeSplits proposes a split for each of the given nodes. Splitters that
// use the embedding need emb; MCL does not. Nodes without neighbours are
// skipped. The result follows the order of nodes and does not depend on Workers.
func ProposeSplits(ctx context.Context, g *Graph, emb *Embedding, nodes []int, cfg SplitConfig) ([]Proposal, error) {
	if !slices.Contains(Splitters, cfg.Method) {
		return nil, fmt.Errorf("unknown splitter %q (want one of %v)", cfg.Method, Splitters)
	}
	spec := splitterSpecs[cfg.Method]
	if spec.needsEmbedding && emb == nil {
		return nil, fmt.Errorf("splitter %q needs an embedding: score with method %q or %q", cfg.Method, MethodCombined, MethodFONDUE)
	}
	if emb != nil && emb.Len() != g.NumNodes() {
		return nil, fmt.Errorf("embedding has %d rows for %d nodes", emb.Len(), g.NumNodes())
	}
	if cfg.Prior != nil && len(cfg.Prior.Lambda) != g.NumNodes() {
		return nil, fmt.Errorf("prior has %d nodes, graph %d", len(cfg.Prior.Lambda), g.NumNodes())
	}
	for _, i := range nodes {
		if i < 0 || i >= g.NumNodes() {
			return nil, fmt.Errorf("node index %d out of range [0,%d)", i, g.NumNodes())
		}
	}
	out := make([]Proposal, len(nodes))
	workers := min(workerCount(cfg.Workers), max(1, len(nodes)))
	ws := make([]splitWorker, workers)
	err := forChunks(ctx, workers, len(nodes), func(w, k int) {
		i := nodes[k]
		out[k] = Proposal{Node: i}
		if g.Degree(i) == 0 {
			return
		}
		out[k].Groups = normalizeGroups(spec.split(g, emb, i, &cfg, &ws[w]))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// splitFONDUE splits by the sign vector behind the FONDUE score.
func splitFONDUE(g *Graph, emb *Embedding, i int, cfg *SplitConfig, _ *splitWorker) [][]int32 {
	b := FondueSplit(g, emb, i, randomSplits(cfg.RandomSplits), !cfg.Unnormalized, cfg.Polish, cfg.Seed)
	return signGroups(g.Neighbors(i), b)
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
func splitMCL(g *Graph, _ *Embedding, i int, cfg *SplitConfig, w *splitWorker) [][]int32 {
	e := g.Ego(i, &w.ego)
	return mclGroups(e, w.mcl.Cluster(e, cfg.MCL))
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
