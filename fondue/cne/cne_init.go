package cne

import (
	"context"
	"math"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/fitsize"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
)

// The smoothed start. Plain N(0,1) noise is a poor starting point for CNE:
// neighbouring nodes start far apart and Adam spends most of its epochs
// pulling communities together. Smoothing the same noise over the graph
// first puts neighbours close and gives the embedding the large-scale shape
// of the graph's low-frequency eigenvectors, so the fit starts where the
// noise start arrives after tens of epochs.
//
// From the noise X (one row per node), smoothedStart
//
//  1. takes smoothSteps lazy random-walk steps X <- (X + D^-1 A X)/2
//     (isolated nodes keep their row throughout and are left out of 2-3);
//  2. removes the degree-weighted column means, so the columns are
//     orthogonal to the walk's stationary vector (constant columns would
//     carry no information about the graph);
//  3. orthonormalises the d columns under the degree-weighted inner product
//     <u, v>_D = sum_i d_i u_i v_i (Gram-Schmidt, computed as Cholesky QR
//     applied twice, which gives the same basis) and scales them so that
//     (1/vol) sum_i d_i x_ic^2 = smoothScale^2 for every column c, with
//     vol = sum_i d_i: a degree-weighted per-coordinate RMS of smoothScale,
//     against 1 for the noise.
const (
	smoothSteps = 10
	smoothScale = 0.75
)

// smooth replaces the noise start of a prepared fit by the smoothed start.
// In exact mode it first records the gradient norm of the noise as the
// fit's peak: exact mode stops once the norm falls below Tol/10 times the
// peak, and the smoothed start's own gradient is several times smaller than
// the noise's, which would move that threshold down and lengthen the fit
// (on email, 168 -> 325 epochs). With the noise's norm the threshold is
// what it was; the measurement costs one gradient.
func (f *cneFit) smooth(ctx context.Context) error {
	if f.mode == ModeExact {
		norm, err := f.gradient(ctx, 0)
		if err != nil {
			return err
		}
		f.peak = norm
	}
	// Keep the noise in f.grad (unused until the first epoch): a graph too
	// small or too degenerate for d orthonormal columns keeps it.
	copy(f.grad, f.emb.X)
	ok, err := smoothedStart(ctx, f.g, f.emb.X, f.mom, f.o.Dim, f.r.Workers)
	if err != nil {
		return err
	}
	if !ok {
		copy(f.emb.X, f.grad)
		f.peak = 0
	}
	return nil
}

// smoothChunkCost is the target cost of a chunk of smoothing rows (cost of a
// row: its degree plus 4).
const smoothChunkCost = fitsize.SmoothChunkCost

// smoothedStart turns the noise in X (n x d, row-major) into the smoothed
// start in place, using tmp (same size) as scratch; tmp is left zeroed.
// It reports false, leaving X changed, when the centred smoothed columns
// are not numerically independent: always when the graph has at most d
// nodes with neighbours (the centred columns then span at most d-1
// dimensions).
// The result does not depend on workers: every row's update depends only
// on X, and every sum over rows is taken per chunk of parallel.RowChunks and added
// in chunk order.
func smoothedStart(ctx context.Context, g *graph.Graph, X, tmp []float64, d, workers int) (bool, error) {
	s := newSmoother(ctx, g, d, workers)
	if err := s.walk(X, tmp); err != nil {
		return false, err
	}
	clear(tmp)
	vol := 0.0
	for i := 0; i < s.n; i++ {
		vol += float64(g.Degree(i))
	}
	live := 0
	for i := 0; i < s.n; i++ {
		if g.Degree(i) > 0 {
			live++
		}
	}
	if live <= d {
		return false, nil
	}
	if err := s.center(X, vol); err != nil {
		return false, err
	}
	// Cholesky QR, twice: G = X'DX/vol = R'R, X <- X R^-1 smoothScale.
	for pass := 0; pass < 2; pass++ {
		if ok, err := s.orthonormalize(X, vol); !ok || err != nil {
			return false, err
		}
	}
	for k := range X {
		if g.Degree(k/d) > 0 {
			X[k] *= smoothScale
		}
	}
	return true, nil
}

// smoother runs the steps of smoothedStart over fixed chunks of rows
// (bounds), on up to workers goroutines; part holds per-chunk partial sums
// (up to d x d a chunk), which the steps add in chunk order.
type smoother struct {
	ctx     context.Context
	g       *graph.Graph
	n, d    int
	workers int
	bounds  []int
	part    []float64
}

func newSmoother(ctx context.Context, g *graph.Graph, d, workers int) *smoother {
	n := g.NumNodes()
	bounds := parallel.RowChunks(n, smoothChunkCost, func(i int) float64 { return float64(g.Degree(i) + 4) })
	chunks := len(bounds) - 1
	return &smoother{ctx: ctx, g: g, n: n, d: d, workers: min(parallel.WorkerCount(workers), chunks),
		bounds: bounds, part: make([]float64, chunks*d*d)}
}

// chunks runs fn for every chunk of rows.
func (s *smoother) chunks(fn func(c int)) error {
	return parallel.ForChunks(s.ctx, s.workers, len(s.bounds)-1, func(_, c int) { fn(c) })
}

// walk takes smoothSteps lazy random-walk steps X <- (X + D^-1 A X)/2,
// alternating between X and tmp, and leaves the result in X. Isolated
// nodes keep their row.
func (s *smoother) walk(X, tmp []float64) error {
	g, d := s.g, s.d
	src, dst := X, tmp
	for step := 0; step < smoothSteps; step++ {
		err := s.chunks(func(c int) {
			for i := s.bounds[c]; i < s.bounds[c+1]; i++ {
				xi, yi := src[i*d:(i+1)*d], dst[i*d:(i+1)*d]
				nb := g.Neighbors(i)
				if len(nb) == 0 {
					copy(yi, xi)
					continue
				}
				clear(yi)
				for _, j := range nb {
					xj := src[int(j)*d : (int(j)+1)*d]
					for k := range yi {
						yi[k] += xj[k]
					}
				}
				inv := 1 / float64(len(nb))
				for k := range yi {
					yi[k] = 0.5 * (xi[k] + inv*yi[k])
				}
			}
		})
		if err != nil {
			return err
		}
		src, dst = dst, src
	}
	if &src[0] != &X[0] {
		copy(X, src)
	}
	return nil
}

// center subtracts the degree-weighted column means (vol the sum of the
// degrees) from the rows of the nodes with neighbours.
func (s *smoother) center(X []float64, vol float64) error {
	g, d := s.g, s.d
	err := s.chunks(func(c int) {
		sum := s.part[c*d : (c+1)*d]
		clear(sum)
		for i := s.bounds[c]; i < s.bounds[c+1]; i++ {
			w := float64(g.Degree(i))
			for k, v := range X[i*d : (i+1)*d] {
				sum[k] += w * v
			}
		}
	})
	if err != nil {
		return err
	}
	mu := make([]float64, d)
	for c := 0; c < len(s.bounds)-1; c++ {
		for k := range mu {
			mu[k] += s.part[c*d+k]
		}
	}
	for k := range mu {
		mu[k] /= vol
	}
	return s.chunks(func(c int) {
		for i := s.bounds[c]; i < s.bounds[c+1]; i++ {
			if g.Degree(i) == 0 {
				continue
			}
			for k := range mu {
				X[i*d+k] -= mu[k]
			}
		}
	})
}

// orthonormalize is one pass of Cholesky QR under the degree-weighted
// inner product: G = X'DX/vol = R'R, X <- X R^-1 on the rows of the nodes
// with neighbours. It reports false when G is not numerically positive
// definite.
func (s *smoother) orthonormalize(X []float64, vol float64) (bool, error) {
	g, d := s.g, s.d
	err := s.chunks(func(c int) {
		sum := s.part[c*d*d : (c+1)*d*d]
		clear(sum)
		for i := s.bounds[c]; i < s.bounds[c+1]; i++ {
			w := float64(g.Degree(i))
			if w == 0 {
				continue
			}
			xi := X[i*d : (i+1)*d]
			for p := 0; p < d; p++ {
				wp := w * xi[p]
				for q := p; q < d; q++ {
					sum[p*d+q] += wp * xi[q]
				}
			}
		}
	})
	if err != nil {
		return false, err
	}
	gram := make([]float64, d*d)
	for c := 0; c < len(s.bounds)-1; c++ {
		for k := range gram {
			gram[k] += s.part[c*d*d+k]
		}
	}
	for k := range gram {
		gram[k] /= vol
	}
	rinv := make([]float64, d*d)
	if !upperCholeskyInverse(gram, rinv, d) {
		return false, nil
	}
	err = s.chunks(func(c int) {
		row := make([]float64, d)
		for i := s.bounds[c]; i < s.bounds[c+1]; i++ {
			if g.Degree(i) == 0 {
				continue
			}
			xi := X[i*d : (i+1)*d]
			for q := 0; q < d; q++ {
				sum := 0.0
				for p := 0; p <= q; p++ {
					sum += xi[p] * rinv[p*d+q]
				}
				row[q] = sum
			}
			copy(xi, row)
		}
	})
	return err == nil, err
}

// upperCholeskyInverse factors the symmetric positive definite d x d matrix
// a (upper triangle used) as R'R with R upper triangular, and writes R^-1
// (upper triangular) into inv. It reports false when a is not numerically
// positive definite.
func upperCholeskyInverse(a, inv []float64, d int) bool {
	r := make([]float64, d*d)
	for j := 0; j < d; j++ {
		s := a[j*d+j]
		for k := 0; k < j; k++ {
			s -= r[k*d+j] * r[k*d+j]
		}
		if !(s > 1e-12*a[j*d+j]) || s <= 0 {
			return false
		}
		r[j*d+j] = math.Sqrt(s)
		for q := j + 1; q < d; q++ {
			s := a[j*d+q]
			for k := 0; k < j; k++ {
				s -= r[k*d+j] * r[k*d+q]
			}
			r[j*d+q] = s / r[j*d+j]
		}
	}
	// Back substitution, column by column: R inv = I.
	clear(inv)
	for col := 0; col < d; col++ {
		for row := col; row >= 0; row-- {
			s := 0.0
			if row == col {
				s = 1
			}
			for k := row + 1; k <= col; k++ {
				s -= r[row*d+k] * inv[k*d+col]
			}
			inv[row*d+col] = s / r[row*d+row]
		}
	}
	return true
}
