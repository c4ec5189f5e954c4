package score

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/errs"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
)

// Scoring methods: FONDUE itself and the paper's baselines.
const (
	MethodFONDUE = "fondue" // best Rayleigh quotient of a CNE embedding
	MethodDegree = "degree" // the node's degree
	MethodCC     = "cc"     // connected components of the ego network without the node
	MethodNC     = "nc"     // normalized association of the MCL clustering of the ego network (see normalizedAssociation)
	MethodLCC    = "lcc"    // fraction of the node's neighbour pairs that are unlinked, 1 − local clustering coefficient
)

// Methods returns the scoring methods Score accepts, the default first (a
// fresh slice: the caller may change it).
func Methods() []string {
	return []string{MethodCombined, MethodFONDUE, MethodDegree, MethodCC, MethodNC, MethodLCC}
}

// Defaults and "none" for Options.RandomSplits.
const (
	DefaultRandomSplits = 100
	NoRandomSplits      = -1
)

// Ranking returns the indices of the scores that are not NaN, highest
// first, ties in index order.
func Ranking(scores []float64) []int {
	return sortedIndices(scores, nil, true)
}

// sortedIndices returns the indices k of x with x[k] not NaN (and ok[k]
// set, when ok is given), in ascending (or descending) order of x[k], ties
// (== compares -0 and +0 equal) in index order: the order a stable sort of
// the indices by x gives. It sorts (value, index) pairs, which reads memory
// in order, instead.
func sortedIndices(x []float64, ok []bool, descending bool) []int {
	type entry struct {
		v float64
		i int
	}
	es := make([]entry, 0, len(x))
	for k, v := range x {
		if !math.IsNaN(v) && (ok == nil || ok[k]) {
			es = append(es, entry{v, k})
		}
	}
	sign := 1
	if descending {
		sign = -1
	}
	slices.SortFunc(es, func(a, b entry) int {
		switch {
		case a.v < b.v:
			return -sign
		case a.v > b.v:
			return sign
		}
		return a.i - b.i
	})
	idx := make([]int, len(es))
	for k, e := range es {
		idx[k] = e.i
	}
	return idx
}

// Percentiles maps scores to their empirical CDF: the fraction of scored
// nodes whose score is lower or equal, in (0, 1]. NaN stays NaN.
func Percentiles(scores []float64) []float64 {
	order := Ranking(scores)
	slices.Reverse(order) // ascending
	out := make([]float64, len(scores))
	for i := range out {
		out[i] = math.NaN()
	}
	n := float64(len(order))
	for a := 0; a < len(order); {
		b := a
		for b < len(order) && scores[order[b]] == scores[order[a]] {
			b++
		}
		for _, i := range order[a:b] {
			out[i] = float64(b) / n
		}
		a = b
	}
	return out
}

// randomSplits resolves Options.RandomSplits to a count.
func randomSplits(t int) int {
	switch {
	case t == 0:
		return DefaultRandomSplits
	case t < 0:
		return 0
	}
	return t
}

// MethodCombined is the default ranking method. It weighs two kinds of
// evidence that a node merges several entities:
//
//  1. Embedding evidence: how much would the CNE objective gain by splitting
//     the node along the best sign vector b of the Rayleigh quotient? That
//     is the FONDUE score itself.
//  2. Graph evidence: are the node's neighbours strangers to each other,
//     tied together only by the node? Two shares of neighbour pairs that
//     are neither linked nor have a common neighbour other than the node,
//     averaged (graphEvidence): across the split b (splitDisconnection),
//     and across the pieces of the neighbourhood, the groups that such
//     pairs leave apart (the fragmentation 1 − Σp², p the pieces' shares
//     of the neighbours). Two entities merged into one node bring two
//     neighbourhoods that nothing but the node ties together; the
//     neighbours of one real entity are usually linked, or share someone
//     else. The split's share sees two entities where the embedding put
//     them; the pieces see them however many there are (a real homonym
//     stands for four persons on average, bench/real-results), which the
//     split's two sides cannot.
//
// The embedding sees the split only through the node's position, so the two
// kinds use different information. Their answers live on different
// scales, so each becomes a percentile among the scored nodes (average
// ranks for ties), read as a p-value, and the two are combined as
// independent tests are by Stouffer's method: the score is the weighted
// mean of their normal quantiles, z = Φ⁻¹((rank − ½)/count)
// (combineRanks). A plain mean of the percentiles would count a step from
// the 50th to the 60th percentile as much as one from the 90th to the
// 100th; as p-values the tail counts more, which matters where most nodes
// have no graph evidence at all (92% of the real co-author graph's nodes,
// one clique of co-authors each: there, any fragmentation ranks above the
// 92nd percentile, and a mean would squeeze all of it into the top tenth
// of the scale while the FONDUE percentile spans the whole). Nodes with
// fewer than two neighbours have no pair and get graph evidence 0.
//
// The weight of the graph evidence is 1 - (its median over the nodes with
// two or more neighbours), with weight 1 on the FONDUE percentile
// (disconnectionWeight). Strangers around a node are evidence only where
// they are unusual: in a graph whose neighbourhoods are knit
// (co-authorship, social and knowledge graphs: median 0, weight 1, an
// equal weight) they are, but where the typical node's neighbours are
// already strangers to each other (sparse, locally tree-like graphs, such
// as a block model of average degree 10) the evidence hardly separates
// merged nodes from the rest, and an equal weight would drown the FONDUE
// score in its noise. The weight is read off the graph, not fitted to
// labels.
//
// Degree: the embedding places a hub badly whether or not it merges
// anything, so FONDUE's score rises with degree on graphs with hubs (a
// block model with power-law degrees: Spearman .66), and the Stouffer sum
// let that tail alone put hubs first. Where degree does go with merging
// (a graph keyed by name, where common names have more papers), the
// graph evidence rises with degree too; where it does not (the hubs of
// the block model), the evidence does not. The method reads that
// gap off the graph, a = ρ(FONDUE, degree) − ρ(evidence, degree) within
// [0, 1] (Spearman's; degreeConditioning), and reads both signals that
// much within the node's degree bin, floor(log2 degree): each z is
// (1 − a)·(its z among all nodes) + a·(its z among the nodes of its bin),
// and the degree itself enters as a third test of weight a/2, so that a
// doubled degree still counts, as one test among three rather than as
// the hidden cause of the other two (combineByDegree). At a = 0 this is
// the two-signal Stouffer mean. The choice and its measurements are in
// bench/RANKING.md.
const MethodCombined = "combined"

// DefaultMethod is the method used when none is named.
const DefaultMethod = MethodCombined

// UsesEmbedding reports whether a method fits the CNE embedding (and
// so can be followed by splitters that need it, and checkpointed).
func UsesEmbedding(m string) bool { return m == MethodFONDUE || m == MethodCombined }

// BaselineMethods returns the methods Baseline accepts (a fresh
// slice).
func BaselineMethods() []string { return []string{MethodDegree, MethodCC, MethodNC, MethodLCC} }

// Options configures the scores of an embedding (the scoring part of
// Score's Options).
type Options struct {
	Method       string // MethodCombined (default) or MethodFONDUE
	Seed         uint64 // seeds the random sign vectors
	Workers      int    // goroutines (default: all cores); results do not depend on it
	RandomSplits int    // random sign vectors per node (0: DefaultRandomSplits; NoRandomSplits: none)
	Unnormalized bool   // the quotient is not divided by the degree
	Polish       bool   // single-sign flips improve the best sign vector
	Targets      []bool // nil: every node; else only the nodes set are scored
}

// combinedShare is the share of the combined method's scores in the
// progress of scoring an embedding: the split's tests, then the pieces.
const combinedShare = 0.85

// Embedding scores every node of g from a CNE embedding of it: with
// FONDUE's quotient (opts.Method MethodFONDUE) or the combined method
// (MethodCombined, the default). Isolated nodes, and nodes that are not
// opts.Targets, get NaN.
func Embedding(ctx context.Context, g *graph.Graph, emb *cne.Embedding, opts Options) ([]float64, error) {
	if emb == nil || emb.Len() != g.NumNodes() {
		return nil, &errs.OptionsError{Msg: fmt.Sprintf("scoring needs an embedding of the graph's %d nodes", g.NumNodes())}
	}
	p := opts.signParams()
	switch opts.Method {
	case MethodFONDUE:
		return fondueScores(ctx, g, emb, p)
	case "", MethodCombined:
		fs, disc, err := splitDisconnection(parallel.SubProgress(ctx, 0, combinedShare), g, emb, p)
		if err != nil {
			return nil, err
		}
		eff, err := effectivePieces(parallel.SubProgress(ctx, combinedShare, 1), g, scoredOf(fs), p.Workers, true)
		if err != nil {
			return nil, err
		}
		ev := graphEvidence(disc, eff)
		return combineByDegree(g, fs, ev, disconnectionWeight(g, ev)), nil
	}
	return nil, &errs.OptionsError{Msg: fmt.Sprintf("method %q does not score an embedding (want %q or %q)", opts.Method, MethodCombined, MethodFONDUE)}
}
