package fondue

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
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
// opts.Split.Splitter (nil: the default, split.Named("")). res is the score
// of g the proposals follow, and opts the options it was scored with: the
// splitters that use the embedding read res.Embedding (and res.Prior, when
// set); the others accept a nil res. The proposals carry the nodes' scores
// and ambiguities from res. When res has entity estimates (Entities), no
// node gets more than GroupCap of its estimate groups. Nodes without
// neighbours get no groups. The result follows the order of nodes and does
// not depend on opts.Workers.
func ProposeSplits(ctx context.Context, g *graph.Graph, res *Result, nodes []int, opts Options) ([]Proposal, error) {
	sp := opts.Split.Splitter
	if sp == nil {
		sp = split.Named("")
	}
	if res == nil {
		res = &Result{}
	}
	emb := res.Embedding
	if sp.NeedsEmbedding() && emb == nil {
		return nil, needsEmbedding(sp, res.Method)
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
	in := &split.Input{Embedding: emb, Prior: res.Prior, CNE: opts.CNE, MCL: opts.Split.MCL, Score: opts.scoring()}
	var groups [][][]int32
	var reasons [][][]evidence.Reason
	var err error
	if opts.Context == nil {
		groups, err = split.Propose(ctx, g, in, sp, nodes, opts.Workers)
	} else {
		groups, reasons, err = proposeByEvidence(ctx, g, res, in, sp, nodes, opts)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Proposal, len(nodes))
	for k, i := range nodes {
		out[k] = Proposal{Node: i, Groups: groups[k]}
		if reasons != nil {
			out[k].Reasons = reasons[k]
		}
		if i < len(res.Scores) {
			out[k].Score = res.Scores[i]
		}
		if i < len(res.Ambiguity) {
			out[k].Ambiguity = res.Ambiguity[i]
		}
	}
	// The cap: after the splitter (and the merge of pieces by evidence), no
	// node gets more groups than its entity estimate supports (GroupCap).
	if res.Entities != nil {
		for k := range out {
			if i := out[k].Node; i < len(res.Entities) && res.Entities[i] >= 1 {
				out[k].Groups, out[k].Reasons = capGroups(out[k].Groups, out[k].Reasons, GroupCap(res.Entities[i]), emb)
			}
		}
	}
	return out, nil
}

// proposeByEvidence splits the nodes on the structural graph (the targets
// and their neighbours), then merges the groups that the context says are
// one entity (package evidence).
func proposeByEvidence(ctx context.Context, g *graph.Graph, res *Result, in *split.Input, sp split.Splitter, nodes []int, opts Options) ([][][]int32, [][][]evidence.Reason, error) {
	if err := opts.Context.Check(g.NumNodes()); err != nil {
		return nil, nil, &OptionsError{Msg: err.Error()}
	}
	st := res.st
	if st == nil {
		targets := opts.Targets
		if targets == nil {
			targets = make([]bool, g.NumNodes())
			for i := range targets {
				targets[i] = true
			}
		}
		var err error
		if st, err = newStructure(g, targets); err != nil {
			return nil, nil, err
		}
		if in.Embedding != nil {
			st.emb = &cne.Embedding{Dim: in.Embedding.Dim, X: make([]float64, len(st.nodes)*in.Embedding.Dim)}
			for a, i := range st.nodes {
				copy(st.emb.Row(a), in.Embedding.Row(int(i)))
			}
		}
		if in.Prior != nil {
			st.prior = &cne.Prior{Lambda: make([]float64, len(st.nodes))}
			for a, i := range st.nodes {
				st.prior.Lambda[a] = in.Prior.Lambda[i]
			}
		}
	}
	sub := *in
	sub.Embedding, sub.Prior = st.emb, st.prior
	subNodes := make([]int, len(nodes))
	for k, i := range nodes {
		if subNodes[k] = int(st.index[i]); subNodes[k] < 0 {
			return nil, nil, &OptionsError{Msg: fmt.Sprintf("node %d is context (neither a target nor a target's neighbour): it cannot be split", i)}
		}
	}
	groups, err := split.Propose(ctx, st.g, &sub, sp, subNodes, opts.Workers)
	if err != nil {
		return nil, nil, err
	}
	for _, gs := range groups {
		st.toFull(gs)
	}

	// The merge of groups by evidence.
	m := st.model
	if m == nil {
		scores := res.Scores
		if len(scores) != g.NumNodes() {
			return nil, nil, fmt.Errorf("the evidence needs the scores of the graph's %d nodes, got %d", g.NumNodes(), len(scores))
		}
		if _, _, m, err = fitEvidence(ctx, g, st, scores, opts); err != nil {
			return nil, nil, err
		}
		st.model = m
	}
	return m.MergeAll(ctx, groups, opts.Workers)
}

// GroupCap is the most groups a split may make of a node whose entity
// estimate is entities: three times the estimate (at least 1). The
// estimate counts the pieces of the neighbourhood and undercounts where
// one link joins two people's circles, so a cap at the estimate itself
// merged real persons; three times it keeps a hub whose estimate is 2
// from becoming hundreds of one-edge clones (bench/RANKING.md).
func GroupCap(entities int) int { return 3 * max(1, entities) }

// capGroups merges groups (largest first) down to at most limit groups: the
// limit largest stay, and each further group joins the kept group whose
// centroid in emb is nearest to its own, or the largest kept group without
// an embedding. A splitter's small surplus pieces are mostly neighbours it
// could not place (a hub's one-edge clones), not entities the graph shows.
// The result is sorted as Proposal.Groups is: each group sorted, largest
// first (ties by first member). reasons (nil, or one per group) follow
// their groups; a group joined by the cap brings its members, not its
// reasons, since the join is the cap's, not the evidence's. Groups within
// the cap are returned as is.
func capGroups(groups [][]int32, reasons [][]evidence.Reason, limit int, emb *cne.Embedding) ([][]int32, [][]evidence.Reason) {
	if len(groups) <= limit {
		return groups, reasons
	}
	kept := make([][]int32, limit)
	for k := range kept {
		kept[k] = slices.Clone(groups[k])
	}
	var cent [][]float64
	if emb != nil {
		cent = make([][]float64, limit)
		for k := range kept {
			cent[k] = centroid(emb, groups[k])
		}
	}
	for _, g := range groups[limit:] {
		to := 0
		if cent != nil {
			c, best := centroid(emb, g), math.Inf(1)
			for k := range cent {
				if d := sqDist(c, cent[k]); d < best {
					to, best = k, d
				}
			}
		}
		kept[to] = append(kept[to], g...)
	}
	order := make([]int, limit)
	for k := range kept {
		slices.Sort(kept[k])
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if len(kept[a]) != len(kept[b]) {
			return len(kept[b]) - len(kept[a])
		}
		return int(kept[a][0]) - int(kept[b][0])
	})
	outG := make([][]int32, limit)
	var outR [][]evidence.Reason
	if reasons != nil {
		outR = make([][]evidence.Reason, limit)
	}
	for k, o := range order {
		outG[k] = kept[o]
		if outR != nil {
			outR[k] = reasons[o]
		}
	}
	return outG, outR
}

// centroid returns the mean of emb's rows of the nodes.
func centroid(emb *cne.Embedding, nodes []int32) []float64 {
	c := make([]float64, emb.Dim)
	for _, j := range nodes {
		for d, v := range emb.Row(int(j)) {
			c[d] += v
		}
	}
	for d := range c {
		c[d] /= float64(max(1, len(nodes)))
	}
	return c
}

func sqDist(a, b []float64) float64 {
	s := 0.0
	for d := range a {
		s += (a[d] - b[d]) * (a[d] - b[d])
	}
	return s
}
