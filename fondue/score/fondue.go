package score

import (
	"context"
	"math"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/quotient"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
)

// The FONDUE score of node i (method.md section 2). Splitting i into i' and
// i'' and moving them apart by delta changes the CNE objective, to first
// order, by -(gamma/2) D_i b . delta, where the columns of D_i are
// y_j = x_i - x_j for the neighbours j and b in {-1,+1}^m says which copy
// keeps each neighbour. The best split is the one with the steepest ascent,
// i.e. the largest Rayleigh quotient
//
//	R_i(b) = ||sum_j b_j y_j||^2 / b'b = ||sum_j b_j y_j||^2 / m,
//
// a boolean quadratic maximisation (NP-hard), approximated by the best of an
// eigenvector sweep and T random sign vectors. The node's ambiguity is that
// best R.

// rayleigh returns ||sum_j b_j (x_i - x_j)||^2 / m for node i and sign vector b.
func rayleigh(g *graph.Graph, emb *cne.Embedding, i int, b []int8, normalize bool) float64 {
	nb := g.Neighbors(i)
	xi := emb.Row(i)
	acc := make([]float64, emb.Dim)
	for k, j := range nb {
		xj := emb.Row(int(j))
		for c := range acc {
			acc[c] += float64(b[k]) * (xi[c] - xj[c])
		}
	}
	s := vec.Dot(acc, acc)
	if normalize {
		s /= float64(len(nb))
	}
	return s
}

// signParams are the settings of the search for a node's best sign
// vector: T random sign vectors besides the eigenvector sweep, whether the
// quotient is divided by the degree, whether the best vector is polished,
// the seed of the random vectors, and the goroutines (0: all cores).
type signParams struct {
	T         int
	Normalize bool
	Polish    bool
	Seed      uint64
	Workers   int
	Targets   []bool // nil: every node; else only the nodes set are scored (the others get NaN)
}

// skip reports whether node i is left unscored: not a target.
func (p *signParams) skip(i int) bool { return p.Targets != nil && !p.Targets[i] }

// signParams returns the sign-vector settings of the options.
func (o *Options) signParams() signParams {
	return signParams{T: randomSplits(o.RandomSplits), Normalize: !o.Unnormalized, Polish: o.Polish, Seed: o.Seed, Workers: o.Workers, Targets: o.Targets}
}

// fondueScores computes every node's FONDUE ambiguity from an embedding, in
// parallel; the result does not depend on p.Workers. Isolated nodes get NaN.
func fondueScores(ctx context.Context, g *graph.Graph, emb *cne.Embedding, p signParams) ([]float64, error) {
	randomSplits, normalize, polish, seed, workers := p.T, p.Normalize, p.Polish, p.Seed, p.Workers
	n := g.NumNodes()
	scores := make([]float64, n)
	bounds := parallel.RowChunks(n, 1<<14, func(i int) float64 { return float64(g.Degree(i)*(randomSplits+4) + 8) })
	chunks := len(bounds) - 1
	workers = min(parallel.WorkerCount(workers), chunks)
	work := make([]*quotient.Work, workers)
	for w := range work {
		work[w] = quotient.New(emb.Dim)
	}
	err := parallel.ForChunks(ctx, workers, chunks, func(w, c int) {
		for i := bounds[c]; i < bounds[c+1]; i++ {
			if p.skip(i) {
				scores[i] = math.NaN()
				continue
			}
			r := rng.SplitMix{S: rng.StreamSeed(seed, rng.StreamSigns, uint64(i), 0)}
			scores[i] = quotient.Node(g, emb.X, i, randomSplits, normalize, polish, &r, work[w], nil)
		}
	})
	if err != nil {
		return nil, err
	}
	return scores, nil
}

// SignVector returns the sign vector behind node i's FONDUE score under
// the options o (one entry per neighbour, in the order of g.Neighbors(i)):
// the split that produced the score.
func SignVector(g *graph.Graph, emb *cne.Embedding, i int, o Options) []int8 {
	return fondueSplit(g, emb, i, o.signParams())
}

// fondueSplit returns the sign vector behind node i's FONDUE score (one entry
// per neighbour, in the order of g.Neighbors(i)), drawn from the same random
// stream as fondueScores so that it is the split that produced the score.
func fondueSplit(g *graph.Graph, emb *cne.Embedding, i int, p signParams) []int8 {
	b := make([]int8, g.Degree(i))
	if len(b) == 0 {
		return b
	}
	r := rng.SplitMix{S: rng.StreamSeed(p.Seed, rng.StreamSigns, uint64(i), 0)}
	quotient.Node(g, emb.X, i, p.T, p.Normalize, p.Polish, &r, quotient.New(emb.Dim), b)
	return b
}

// SignGroups turns a sign vector over nb into two groups (+1, −1).
func SignGroups(nb []int32, b []int8) [][]int32 {
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
