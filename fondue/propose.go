package fondue

import (
	"context"
	"fmt"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// Proposal says how to split one node: each group of neighbours becomes the
// neighbourhood of one node. Groups[0] stays with the original node; each
// further group moves to a new node.
type Proposal struct {
	Node      int       // node index
	Groups    [][]int32 // neighbour node indices, each group sorted; largest group first
	Score     float64   // the node's raw score, when known
	Ambiguity float64   // the node's ambiguity percentile, when known
	// Reasons holds, per group, the shared context that merged its pieces
	// (strongest first); nil without Options.Context.
	Reasons [][]evidence.Reason
}

// ProposeSplits proposes a split of each of the given nodes with
// opts.Split.Splitter (nil: the default, split.Default). res is the score
// of g the proposals follow, and opts the options it was scored with: the
// splitters that use the embedding read res.Embedding (and res.Prior, when
// set); the others accept a nil res. The proposals carry the nodes' scores
// and ambiguities from res. Nodes without neighbours get no groups. The
// result follows the order of nodes and does not depend on opts.Workers.
func ProposeSplits(ctx context.Context, g *graph.Graph, res *Result, nodes []int, opts Options) ([]Proposal, error) {
	sp := opts.Split.Splitter
	if sp == nil {
		sp = split.Splitters()[0]
	}
	if res == nil {
		res = &Result{}
	}
	emb := res.Embedding
	if sp.NeedsEmbedding() && emb == nil {
		return nil, &OptionsError{Msg: fmt.Sprintf("splitter %q needs an embedding: score with method %q or %q", sp.Name(), score.MethodCombined, score.MethodFONDUE)}
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
	in := &split.Input{Embedding: emb, Prior: res.Prior, CNE: opts.CNE, MCL: opts.Split.MCL, Seed: opts.Seed,
		RandomSplits: opts.RandomSplits, Unnormalized: opts.Unnormalized, Polish: opts.Polish}
	groups, err := split.Propose(ctx, g, in, sp, nodes, opts.Workers)
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
