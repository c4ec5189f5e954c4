package cne

import (
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/quotient"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
)

// The ranking-stability stop. What Score needs from the embedding is the
// ranking of the nodes by FONDUE score, and that ranking settles well
// before the gradient norm does. Every stableEvery epochs the fit scores a
// fixed sample of nodes by a cheap statistic of their neighbourhoods in
// the embedding (spread, below) and takes the top stableTop share of the
// sample; training stops when that set shares
// at least stableOverlap of its members with the previous check's.
//
// The sample is every node when the graph has at most stableSample nodes
// with neighbours, else stableSample of them evenly spaced in the fit's
// numbering. Checks therefore cost O(stableSample * mean degree * d^2),
// independent of the graph's size, a small fraction of an epoch on graphs
// larger than the sample. The stop is off on warm starts (Run.Init),
// which keep the gradient-norm test alone. The defaults
// (stableEvery and the others) are in tuning.go, where tests change them.

// stabilityStop holds the state of the ranking-stability stop.
type stabilityStop struct {
	sample []int32   // nodes checked, ascending
	score  []float64 // their eigen-sweep scores at the last check
	order  []int32   // scratch for ranking
	prev   []int32   // top set at the previous check, ascending; nil before the first
	top    []int32
	work   *quotient.Work
	v, u   []float64 // power-iteration vectors
	t      tuning    // the stop's parameters (zero: the defaults)
}

// spread returns the largest eigenvalue of node i's scatter matrix
// sum_j y_j y_j' (y_j = x_i - x_j over the neighbours) divided by its
// degree, estimated by stablePower steps of power iteration from the
// all-ones vector: the mean squared spread of i's neighbours along their
// main direction. It is a signal of the embedding settling, not FONDUE's
// score: the normalised quotient is bounded by lambda_max itself
// (||Y'b||^2 / m <= lambda_max), so ranking by lambda_max/m discounts
// high degrees. It costs the scatter matrix and a few d x d products,
// against the Jacobi eigendecomposition behind the sweep (3-4 epochs of
// grqc per check of 1000 nodes with the sweep). The stop was developed and
// confirmed with this statistic (bench/EPOCHS.md).
func (s *stabilityStop) spread(g *graph.Graph, emb *Embedding, i int) float64 {
	w := s.work
	d := emb.Dim
	w.Differences(emb.X, i, g.Neighbors(i))
	if s.v == nil {
		s.v, s.u = make([]float64, d), make([]float64, d)
	}
	v, u := s.v, s.u
	for k := range v {
		v[k] = 1
	}
	lam := 0.0
	for it := 0; it < stablePower; it++ {
		for p := 0; p < d; p++ {
			u[p] = vec.Dot(w.Scatter()[p*d:(p+1)*d], v)
		}
		nv := math.Sqrt(vec.Dot(v, v))
		nu := math.Sqrt(vec.Dot(u, u))
		if nu == 0 || nv == 0 {
			return 0
		}
		lam = nu / nv
		for k := range v {
			v[k] = u[k] / nu
		}
	}
	return lam / float64(len(g.Neighbors(i)))
}

// stablePower is the number of power-iteration steps of spread.
const stablePower = 12

// newStabilityStop picks the sample of g's nodes with neighbours.
func newStabilityStop(g *graph.Graph, d int, t tuning) *stabilityStop {
	n := g.NumNodes()
	size := t.sample()
	live := 0
	for i := 0; i < n; i++ {
		if g.Degree(i) > 0 {
			live++
		}
	}
	var sample []int32
	if live <= size {
		sample = make([]int32, 0, live)
		for i := 0; i < n; i++ {
			if g.Degree(i) > 0 {
				sample = append(sample, int32(i))
			}
		}
	} else {
		// The k-th of size evenly spaced live nodes: walk the live
		// nodes once and take every one whose rank crosses the next mark.
		sample = make([]int32, 0, size)
		rank := 0
		for i := 0; i < n && len(sample) < size; i++ {
			if g.Degree(i) == 0 {
				continue
			}
			if int64(rank)*int64(size) >= int64(len(sample))*int64(live) {
				sample = append(sample, int32(i))
			}
			rank++
		}
	}
	return &stabilityStop{sample: sample, score: make([]float64, len(sample)),
		order: make([]int32, len(sample)), work: quotient.New(d), t: t}
}

// check scores the sample on emb and reports whether its top set overlaps
// the previous check's by at least the overlap of s.t.
func (s *stabilityStop) check(g *graph.Graph, emb *Embedding) bool {
	for k, i := range s.sample {
		if s.t.stableEigenSweep {
			s.score[k] = quotient.Node(g, emb.X, int(i), 0, true, false, nil, s.work, nil)
		} else {
			s.score[k] = s.spread(g, emb, int(i))
		}
	}
	return s.observe()
}

// observe ranks s.score and compares the top set with the previous one.
func (s *stabilityStop) observe() bool {
	m := len(s.score)
	top := int(s.t.top() * float64(m))
	if top < 1 {
		return false
	}
	for k := range s.order {
		s.order[k] = int32(k)
	}
	slices.SortFunc(s.order, func(a, b int32) int {
		if s.score[a] != s.score[b] {
			if s.score[a] > s.score[b] {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	cur := append(s.top[:0], s.order[:top]...)
	slices.Sort(cur)
	stable := false
	if s.prev != nil {
		common, a, b := 0, 0, 0
		for a < len(cur) && b < len(s.prev) {
			switch {
			case cur[a] == s.prev[b]:
				common++
				a++
				b++
			case cur[a] < s.prev[b]:
				a++
			default:
				b++
			}
		}
		stable = float64(common) >= s.t.overlap()*float64(top)
	}
	s.top, s.prev = s.prev, cur
	if s.top == nil {
		s.top = make([]int32, 0, top)
	}
	return stable
}
