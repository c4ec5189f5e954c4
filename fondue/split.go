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

// Splitters lists the splitters ProposeSplits accepts.
var Splitters = []string{SplitMCL, SplitFONDUE}

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
}

// ProposeSplits proposes a split for each of the given nodes. Splitters that
// use the embedding need emb; MCL does not. Nodes without neighbours are
// skipped. The result follows the order of nodes and does not depend on Workers.
func ProposeSplits(ctx context.Context, g *Graph, emb *Embedding, nodes []int, cfg SplitConfig) ([]Proposal, error) {
	if !slices.Contains(Splitters, cfg.Method) {
		return nil, fmt.Errorf("unknown splitter %q (want one of %v)", cfg.Method, Splitters)
	}
	if cfg.Method == SplitFONDUE && emb == nil {
		return nil, fmt.Errorf("splitter %q needs an embedding: score with method %q", cfg.Method, MethodFONDUE)
	}
	for _, i := range nodes {
		if i < 0 || i >= g.NumNodes() {
			return nil, fmt.Errorf("node index %d out of range [0,%d)", i, g.NumNodes())
		}
	}
	out := make([]Proposal, len(nodes))
	workers := min(workerCount(cfg.Workers), max(1, len(nodes)))
	egos := make([]EgoNet, workers)
	err := forChunks(ctx, workers, len(nodes), func(w, k int) {
		i := nodes[k]
		out[k] = Proposal{Node: i}
		nb := g.Neighbors(i)
		if len(nb) == 0 {
			return
		}
		var groups [][]int32
		switch cfg.Method {
		case SplitFONDUE:
			b := FondueSplit(g, emb, i, randomSplits(cfg.RandomSplits), !cfg.Unnormalized, cfg.Polish, cfg.Seed)
			var plus, minus []int32
			for k, j := range nb {
				if b[k] > 0 {
					plus = append(plus, j)
				} else {
					minus = append(minus, j)
				}
			}
			groups = [][]int32{plus, minus}
		case SplitMCL:
			e := g.Ego(i, &egos[w])
			for _, c := range MCL(e, cfg.MCL) {
				grp := make([]int32, len(c))
				for k, local := range c {
					grp[k] = e.Nodes[local]
				}
				groups = append(groups, grp)
			}
		}
		out[k].Groups = normalizeGroups(groups)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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
