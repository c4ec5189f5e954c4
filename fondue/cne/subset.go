package cne

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// Training a subset of the rows (Run.Trainable), the others frozen: an
// incremental run re-fits the vectors of the nodes whose links changed
// and leaves the rest where the last run put them. Each epoch computes
// the gradient of the trained rows only (their links and sampled
// negatives, which read the frozen rows) and moves only them, so an epoch
// costs O(sum of their degrees x d) besides an O(n d) copy of the start;
// the graph is not renumbered (that costs O(m)). The gradient and Adam's
// moments of the trained rows are kept packed, row k of them the k-th
// trained row (in place, they would be rows scattered over the graph's
// arrays, a cache miss each), and written back at the end. The stopping
// test starts a fresh history, as the subset's gradient norms are not
// comparable with the whole graph's; the saved history is kept for the
// next full run.

// fitSubset is Fit with Run.Trainable set.
func (f *cneFit) fitSubset(ctx context.Context, st Stats, start time.Time) (*Embedding, Stats, error) {
	n, d := f.g.NumNodes(), f.o.Dim
	rows := f.r.Trainable
	if f.r.Init == nil {
		return nil, st, fmt.Errorf("training a subset of the rows needs a starting embedding (Run.Init)")
	}
	for k, i := range rows {
		if i < 0 || int(i) >= n || (k > 0 && rows[k-1] >= i) {
			return nil, st, fmt.Errorf("trainable rows must be ascending node indices below %d (row %d is %d)", n, k, i)
		}
	}
	saved := f.hist
	f.hist, f.peak = nil, 0
	if len(rows) > 0 && f.g.NumEdges() > 0 {
		f.rows = rows
		f.m = newCNEModel(f.g, &Prior{Lambda: f.lam}, f.o)
		// Packed: row k is rows[k]'s.
		f.grad = make([]float64, len(rows)*d)
		full := [2][]float64{f.mom, f.vel}
		f.mom, f.vel = make([]float64, len(rows)*d), make([]float64, len(rows)*d)
		for k, i := range rows {
			copy(f.mom[k*d:(k+1)*d], full[0][int(i)*d:])
			copy(f.vel[k*d:(k+1)*d], full[1][int(i)*d:])
		}
		if f.mode == ModeExact {
			f.bounds = parallel.RowChunks(len(rows), float64(exactChunkCost), func(int) float64 { return float64(n) })
		} else {
			f.bounds = parallel.RowChunks(len(rows), float64(sampledChunkCost), func(k int) float64 {
				return float64(f.g.Degree(int(rows[k]))*(1+f.o.NegRatio) + 4)
			})
		}
		chunks := len(f.bounds) - 1
		f.workers = min(parallel.WorkerCount(f.r.Workers), chunks)
		f.sq = make([]float64, chunks)
		f.pool = newNegativePool(f.g)
		f.work = make([]blockWork, f.workers)
		f.b1t, f.b2t = math.Pow(adamBeta1, float64(f.step)), math.Pow(adamBeta2, float64(f.step))
		if f.mode == ModeSampled {
			f.near = newNearRows(f.g, f.m, f.emb.X, rows)
			f.near.need = make([]int, chunks)
			for c := range chunks {
				for _, i := range rows[f.bounds[c]:f.bounds[c+1]] {
					f.near.need[c] = max(f.near.need[c], f.m.negativesOf(int(i), f.o.NegRatio, f.pool))
				}
			}
		}
		for epoch := 0; epoch < f.o.MaxEpochs; epoch++ {
			norm, err := f.gradient(ctx, epoch)
			if err != nil {
				return nil, st, err
			}
			f.adamStep()
			f.hist = append(f.hist, norm)
			st.Epochs, st.GradNorm = epoch+1, norm
			if f.r.Progress != nil {
				f.r.Progress(Progress{Epoch: epoch + 1, MaxEpochs: f.o.MaxEpochs, GradNorm: norm})
			}
			f.peak = max(f.peak, norm)
			if f.converged(epoch, norm) {
				st.Converged = true
				break
			}
		}
		for k, i := range rows {
			copy(full[0][int(i)*d:(int(i)+1)*d], f.mom[k*d:])
			copy(full[1][int(i)*d:(int(i)+1)*d], f.vel[k*d:])
		}
		f.mom, f.vel = full[0], full[1]
	}
	f.hist = append(saved, f.hist...)
	f.finish()
	st.Duration = time.Since(start)
	return f.emb, st, nil
}

// gradRows writes the gradient of the trained rows [lo, hi) of f.rows (one
// chunk) into their rows of f.grad (packed) and returns the sum of its
// squares. In sampled mode the chunk draws one candidate list from its
// own stream (epoch, chunk), as a block of gradSampledBlock does: the
// result depends on the rows, not on the workers.
func (f *cneFit) gradRows(X []float64, lo, hi, epoch, c int, w *blockWork) float64 {
	m, d, rows := f.m, f.o.Dim, f.rows[lo:hi]
	if f.mode == ModeSampled {
		r := rng.SplitMix{S: rng.StreamSeed(f.r.Seed, rng.StreamNegatives, uint64(epoch), uint64(c))}
		m.drawNegatives(X, f.near.need[c], f.pool, &r, w)
	}
	s := 0.0
	for k, i := range rows {
		gi := f.grad[(lo+k)*d : (lo+k+1)*d]
		if f.mode == ModeSampled {
			f.gradNearRow(X, lo+k, int(i), gi, w)
		} else {
			m.gradExactRow(X, int(i), gi)
		}
		for _, v := range gi {
			s += v * v
		}
	}
	return s
}

// adamRows is adamStep on the trained rows only (their moments and
// gradient packed).
func (f *cneFit) adamRows() {
	d := f.o.Dim
	f.beginStep(func() { f.primeRange(0, len(f.grad)) })
	per := max(1, adamChunk/d)
	chunks := (len(f.rows) + per - 1) / per
	_ = parallel.ForChunks(context.Background(), f.workers, chunks, func(_, c int) {
		for k := c * per; k < min(len(f.rows), (c+1)*per); k++ {
			i := int(f.rows[k])
			f.adam(f.emb.X[i*d:(i+1)*d], f.mom[k*d:(k+1)*d], f.vel[k*d:(k+1)*d], f.grad[k*d:(k+1)*d])
			if f.near != nil {
				copy(f.near.X[k*d:(k+1)*d], f.emb.X[i*d:])
			}
		}
	})
}

// nearRows are the trained rows and their neighbours packed (row k of X
// and lam is the k-th trained row's, then the neighbours' in order of
// first appearance), with the trained rows' links by packed row in the
// graph's order: the links of an epoch read a few megabytes instead of
// rows scattered over the graph's arrays. The trained rows' vectors are
// copied in after every step; the sampled negatives, drawn over the whole
// graph, still read the graph's arrays, which the step updates too.
type nearRows struct {
	X   []float64
	m   *cneModel // f.m with the packed rows' multipliers
	off []int     // the links of trained row k are adj[off[k]:off[k+1]]
	adj []int32
	nb  []int32 // the same links by node index (the graph's Neighbors)
	// need[c] is the number of negatives chunk c draws (drawBlockNegatives).
	need []int
}

func newNearRows(g *graph.Graph, m *cneModel, X []float64, rows []int32) *nearRows {
	d := m.dim
	at := make([]int32, g.NumNodes())
	for i := range at {
		at[i] = -1
	}
	order := slices.Clone(rows)
	for k, i := range rows {
		at[i] = int32(k)
	}
	p := &nearRows{off: make([]int, len(rows)+1)}
	for k, i := range rows {
		for _, j := range g.Neighbors(int(i)) {
			if at[j] < 0 {
				at[j] = int32(len(order))
				order = append(order, j)
			}
			p.adj = append(p.adj, at[j])
		}
		p.nb = append(p.nb, g.Neighbors(int(i))...)
		p.off[k+1] = len(p.adj)
	}
	pm := *m
	pm.lam = make([]float64, len(order))
	p.X, p.m = make([]float64, len(order)*d), &pm
	for k, i := range order {
		copy(p.X[k*d:(k+1)*d], X[int(i)*d:])
		pm.lam[k] = m.lam[i]
	}
	return p
}

// gradNearRow is gradSampledRow of trained row i, the t-th, with its links
// read from f.near: the same partners in the same order, the same result.
func (f *cneFit) gradNearRow(X []float64, t, i int, gi []float64, w *blockWork) {
	m, p := f.m, f.near
	clear(gi)
	nb := p.nb[p.off[t]:p.off[t+1]]
	deg := len(nb)
	if deg == 0 {
		return
	}
	xi := p.m.row(p.X, t)
	base := m.logRatio - p.m.lam[t]
	p.m.addLinkGrads(p.X, xi, p.adj[p.off[t]:p.off[t+1]], base, gi, w)
	nonNb := f.pool.n - 1 - deg
	switch k := f.o.NegRatio * deg; {
	case nonNb <= 0:
	case k >= nonNb:
		m.addNonNeighborGrads(X, i, gi, f.pool)
	default:
		m.addSampledNegatives(xi, i, nb, base, k, nonNb, gi, w)
	}
}
