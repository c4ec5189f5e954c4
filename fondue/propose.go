package fondue

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
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
	// The cap: after the splitter (and the merge of pieces by evidence), no
	// node gets more groups than its entity estimate supports (GroupCap).
	if res.Entities != nil && !opts.Split.Uncapped {
		for k := range out {
			if i := out[k].Node; i < len(res.Entities) && res.Entities[i] >= 1 {
				out[k].Groups = capGroups(out[k].Groups, GroupCap(res.Entities[i]), emb)
			}
		}
	}
	return out, nil
}

// GroupCap is the most groups a split may make of a node whose entity
// estimate is entities: twice the estimate, and at least 2. The estimate
// counts the pieces of the neighbourhood, and one link between two
// people's circles makes them one piece: a cap at the estimate itself
// left such nodes unsplit and lost a fair share of the real set's split
// ARI (bench/RANKING.md), while twice the estimate still keeps a hub
// whose estimate is 2 from becoming hundreds of one-edge clones.
func GroupCap(entities int) int { return max(2, 2*entities) }

// capGroups merges groups (largest first) down to at most limit groups: the
// limit largest stay, and each further group joins the kept group whose
// centroid in emb is nearest to its own, or the largest kept group without
// an embedding. A splitter's small surplus pieces are mostly neighbours it
// could not place (a hub's one-edge clones), not entities the graph shows.
// The result is sorted as Proposal.Groups is: each group sorted, largest
// first (ties by first member). Groups within the cap are returned as is.
func capGroups(groups [][]int32, limit int, emb *cne.Embedding) [][]int32 {
	if len(groups) <= limit {
		return groups
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
	for _, g := range kept {
		slices.Sort(g)
	}
	slices.SortStableFunc(kept, func(a, b []int32) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return int(a[0]) - int(b[0])
	})
	return kept
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
