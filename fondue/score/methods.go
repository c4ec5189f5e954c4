package score

import (
	"context"
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
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
// the indices by x gives. Many entries are radix sorted, few compared.
func sortedIndices(x []float64, ok []bool, descending bool) []int {
	if len(x) >= radixMin {
		return radixIndices(x, ok, descending)
	}
	return compareIndices(x, ok, descending)
}

// radixMin is the length from which sortedIndices radix sorts.
const radixMin = 1 << 12

// compareIndices is sortedIndices by a comparison sort of (value, index)
// pairs, which reads memory in order.
func compareIndices(x []float64, ok []bool, descending bool) []int {
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

// radixIndices is sortedIndices by a stable LSD radix sort, a byte a pass,
// of keys whose unsigned order is the values' order: -0 made +0, the sign
// bit flipped for positive values and every bit for negative ones (all
// bits once more when descending). Stability keeps ties in index order;
// passes over a byte that all keys share are skipped.
func radixIndices(x []float64, ok []bool, descending bool) []int {
	type entry struct {
		k uint64
		i int
	}
	flip := uint64(0)
	if descending {
		flip = ^uint64(0)
	}
	var count [8][256]int
	es := make([]entry, 0, len(x))
	for i, v := range x {
		if math.IsNaN(v) || (ok != nil && !ok[i]) {
			continue
		}
		if v == 0 {
			v = 0 // -0 sorts as +0
		}
		b := math.Float64bits(v)
		if b>>63 != 0 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		b ^= flip
		for p := range 8 {
			count[p][byte(b>>(8*p))]++
		}
		es = append(es, entry{b, i})
	}
	n := len(es)
	tmp := make([]entry, n)
	for p := range 8 {
		c := &count[p]
		if n == 0 || c[byte(es[0].k>>(8*p))] == n {
			continue // one value of this byte: the pass keeps the order
		}
		at := 0
		for d, m := range c {
			c[d] = at
			at += m
		}
		for _, e := range es {
			d := byte(e.k >> (8 * p))
			tmp[c[d]] = e
			c[d]++
		}
		es, tmp = tmp, es
	}
	idx := make([]int, n)
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

// MethodCombined is the default ranking method. It combines two kinds of
// evidence that a node merges several entities: the FONDUE score
// (embedding evidence), and graph evidence, the share of the node's
// neighbours that are strangers to each other across the split and across
// the pieces of the neighbourhood (graphEvidence). Each becomes a
// percentile among the scored nodes, and their normal quantiles are
// averaged as independent tests are by Stouffer's method (combineRanks),
// the graph evidence weighted by how unusual strangers are in this graph
// (disconnectionWeight). Where FONDUE's score rises with degree and the
// graph evidence does not (hubs placed badly by the embedding), both are
// read that much within the node's degree bin (degreeConditioning,
// combineByDegree), so that hubs do not come first for their degree
// alone. docs/method.md and bench/RANKING.md give the reasons and the
// measurements.
const MethodCombined = "combined"

// DefaultMethod is the method used when none is named.
const DefaultMethod = MethodCombined

// UsesEmbedding reports whether a method fits the CNE embedding (and
// so can be followed by splitters that need it, and checkpointed); "" is
// DefaultMethod, which does. The one answer for the engine, score,
// estimate and sync.
func UsesEmbedding(m string) bool { return m == "" || m == MethodFONDUE || m == MethodCombined }

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
	s, _, err := EmbeddingSure(ctx, g, emb, opts)
	return s, err
}

// EmbeddingSure scores as Embedding does and, for the combined method,
// says how sure its top 1% and its top 100 are (Sure, surePlaces; nil
// for FONDUE alone, which has no second signal to agree with). It costs
// sureShuffles passes over the nodes and a sort of the scores.
func EmbeddingSure(ctx context.Context, g *graph.Graph, emb *cne.Embedding, opts Options) ([]float64, []Sure, error) {
	t := NewTerms(opts.Method, g.NumNodes())
	if err := EmbeddingTerms(ctx, g, emb, opts, nil, t); err != nil {
		return nil, nil, err
	}
	s, sure := Combine(g, t, opts)
	return s, sure, nil
}
