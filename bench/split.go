package bench

import (
	"context"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/format"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
)

// SplitResult is one splitter's score on one contracted graph
// (method.md section 5.4): for each planted ambiguous node, the adjusted
// Rand index of the splitter's partition of its neighbours against the true
// origin of each neighbour, averaged over the nodes.
type SplitResult struct {
	// MeanARI is the mean of ARI over the evaluated nodes.
	MeanARI float64 `json:"mean_ari"`
	// ARI holds one value per evaluated node, in the order of Nodes.
	ARI []float64 `json:"ari"`
	// Nodes lists the evaluated ambiguous nodes (contracted indices).
	Nodes []int `json:"nodes"`
	// Skipped counts ambiguous nodes with no neighbour left to evaluate
	// (all their neighbours shared by both originals).
	Skipped int `json:"skipped"`
	// Neighbors counts the evaluated neighbours over all nodes, Shared the
	// neighbours of both originals, left out of the ARI.
	Neighbors int `json:"neighbors"`
	Shared    int `json:"shared"`
	// MeanGroups is the mean number of groups the splitter made.
	MeanGroups float64 `json:"mean_groups"`
	Seconds    float64 `json:"seconds"`
}

// EvaluateSplits runs the splitter opts.Split.Splitter on every ambiguous
// node of the contraction and scores it against the truth
// (Contraction.TruthSplit). Neighbours shared by both merged originals have
// no true side: they are left out of the ARI and counted in Shared. A node
// whose neighbours are all shared is skipped and counted. ARI follows
// sklearn's adjusted_rand_score (eval.ARI). scored, the FONDUE score of
// c.Graph with opts (its embedding and prior), is needed by the splitters
// that use the embedding; the others accept nil.
func EvaluateSplits(ctx context.Context, c *eval.Contraction, scored *fondue.Result, opts fondue.Options) (*SplitResult, error) {
	var nodes []int
	for i, amb := range c.Ambiguous {
		if amb {
			nodes = append(nodes, i)
		}
	}
	t0 := time.Now()
	props, err := fondue.ProposeSplits(ctx, c.Graph, scored, nodes, opts)
	if err != nil {
		return nil, err
	}
	res := &SplitResult{Seconds: time.Since(t0).Seconds(), ARI: []float64{}, Nodes: []int{}}
	groups := 0
	for k, i := range nodes {
		truth, pred, shared := splitLabels(c, i, props[k].Groups)
		res.Shared += shared
		if len(truth) == 0 {
			res.Skipped++
			continue
		}
		res.Neighbors += len(truth)
		res.Nodes = append(res.Nodes, i)
		ari, err := eval.ARI(truth, pred)
		if err != nil {
			return nil, err
		}
		res.ARI = append(res.ARI, format.Round6(ari))
		groups += len(props[k].Groups)
	}
	if len(res.ARI) > 0 {
		s := 0.0
		for _, a := range res.ARI {
			s += a
		}
		res.MeanARI = s / float64(len(res.ARI))
		res.MeanGroups = float64(groups) / float64(len(res.ARI))
	}
	return res, nil
}

// splitLabels returns, for the neighbours of ambiguous node i that are not
// shared, the true side (0 kept, 1 removed) and the index of the group the
// splitter put them in, plus the number of shared neighbours left out.
func splitLabels(c *eval.Contraction, i int, groups [][]int32) (truth, pred []int, shared int) {
	nb, side := c.TruthSplit(i)
	group := make(map[int32]int, len(nb))
	for gi, grp := range groups {
		for _, j := range grp {
			group[j] = gi
		}
	}
	for k, j := range nb {
		if side[k] == eval.TruthShared {
			shared++
			continue
		}
		gi, ok := group[j]
		if !ok {
			gi = -1 - k // a neighbour the splitter left out: its own group
		}
		truth = append(truth, int(side[k]))
		pred = append(pred, gi)
	}
	return truth, pred, shared
}
