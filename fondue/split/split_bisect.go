package split

import (
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// Two-way partitioning of a small weighted graph by normalized cut, the
// machinery shared by the splitters that always return two groups (a merged
// node is two entities, so its neighbours form two groups).

// Bisector splits small weighted graphs in two by normalized cut, as the
// ncut splitter does when it merges MCL's clusters into two sides; it is
// exported for splitters built on top of this package (bench/research).
// The zero value is ready to use; a Bisector keeps scratch space between
// calls and must not be used by two goroutines at once.
type Bisector struct{ w bisectWork }

// Bisect splits the nodes 0..m-1 of the weighted graph W (dense, m×m,
// symmetric, non-negative; the diagonal is ignored; m at least 2) into two
// non-empty sides, +1 and −1, of small normalized cut
// cut/vol(A) + cut/vol(B). The result is overwritten by the next call.
func (b *Bisector) Bisect(W []float64, m int) []int8 { return bisect(W, m, &b.w) }

// bisectWork is one worker's scratch space for bisect.
type bisectWork struct {
	sweepBuf
	isq  []float64 // 1/sqrt(deg)
	v, u []float64 // power-iteration vectors
	top  []float64 // top eigenvector of the normalized affinity
	eig  mat.EigenSym
	sym  *mat.SymDense
	vecs mat.Dense
}

// bisectExactMax is the largest graph bisect hands to a dense
// eigensolver (O(m³)); larger ones use power iteration (O(m²) per step).
const bisectExactMax = 300

// bisect splits the nodes 0..m-1 of the weighted graph W (dense, m×m,
// symmetric, non-negative; the diagonal is ignored) into two non-empty sides
// (+1 and −1) of small normalized cut: the relaxed solution (the second
// eigenvector of D^-1/2 W D^-1/2, divided by D^1/2) is swept, and the
// prefix with the smallest Ncut = cut/vol(A) + cut/vol(B) wins. Nodes of
// zero volume cost nothing wherever they go and are put on the side whose
// relaxed values they are closest to (in practice: with the larger side).
// The result aliases w. m must be at least 2.
func bisect(W []float64, m int, w *bisectWork) []int8 {
	w.deg = vec.Resize(w.deg, m)
	w.isq = vec.Resize(w.isq, m)
	total := 0.0
	for a := 0; a < m; a++ {
		s := 0.0
		row := W[a*m : (a+1)*m]
		for b, x := range row {
			if b != a {
				s += x
			}
		}
		w.deg[a] = s
		total += s
		if s > 0 {
			w.isq[a] = 1 / math.Sqrt(s)
		} else {
			w.isq[a] = 0
		}
	}
	w.key = vec.Resize(w.key, m)
	if total == 0 {
		// No affinity at all: any split is as good; keep a deterministic one.
		for a := range w.key {
			w.key[a] = float64(a)
		}
	} else {
		fiedler(W, m, w)
		for a := 0; a < m; a++ {
			w.key[a] = w.v[a] * w.isq[a]
		}
	}
	return sweepNcut(W, m, w)
}

// fiedler writes into w.v the eigenvector of the second largest eigenvalue
// of N = D^-1/2 W D^-1/2 (the largest is 1, with eigenvector D^1/2·1).
func fiedler(W []float64, m int, w *bisectWork) {
	w.v = vec.Resize(w.v, m)
	if m <= bisectExactMax {
		if w.sym == nil || w.sym.SymmetricDim() != m {
			w.sym = mat.NewSymDense(m, nil)
		}
		for a := 0; a < m; a++ {
			for b := a; b < m; b++ {
				x := 0.0
				if a != b {
					x = W[a*m+b] * w.isq[a] * w.isq[b]
				}
				w.sym.SetSym(a, b, x)
			}
		}
		if w.eig.Factorize(w.sym, true) {
			w.vecs.Reset()
			w.eig.VectorsTo(&w.vecs)
			// Eigenvalues ascending: the second largest is at m-2. The sign
			// is fixed so that the first nonzero entry is positive.
			col := m - 2
			sign := 0.0
			for a := 0; a < m; a++ {
				w.v[a] = w.vecs.At(a, col)
				if sign == 0 && math.Abs(w.v[a]) > 1e-12 {
					sign = math.Copysign(1, w.v[a])
				}
			}
			if sign < 0 {
				for a := range w.v {
					w.v[a] = -w.v[a]
				}
			}
			return
		}
	}
	powerFiedler(m, w.deg, &w.v, &w.u, &w.top, uint64(m)*0x9e3779b97f4a7c15+1, 1000, 1e-18,
		func(a int, v []float64) float64 {
			s := 0.0
			for b, x := range W[a*m : (a+1)*m] {
				if b != a {
					s += x * w.isq[b] * v[b]
				}
			}
			return s * w.isq[a]
		})
}

// powerFiedler writes into *v the eigenvector of the second largest
// eigenvalue of N = D^-1/2 W D^-1/2, by power iteration on (N + I)/2, whose
// spectrum is in [0, 1], with the known top eigenvector D^1/2·1 deflated,
// from a fixed pseudo-random start. nv(a, v) returns (N v)_a. It stops after
// maxIter steps or once a step moves v by less than sqrt(tol); u and top
// are scratch.
func powerFiedler(m int, deg []float64, v, u, top *[]float64, seed uint64, maxIter int, tol float64, nv func(a int, v []float64) float64) {
	*u = vec.Resize(*u, m)
	*top = vec.Resize(*top, m)
	t := *top
	nt := 0.0
	for a := 0; a < m; a++ {
		t[a] = math.Sqrt(deg[a])
		nt += deg[a]
	}
	nt = math.Sqrt(nt)
	for a := range t {
		t[a] /= nt
	}
	r := rng.SplitMix{S: seed}
	for a := range *v {
		(*v)[a] = r.Float64() - 0.5
	}
	deflateUnit(*v, t)
	for it := 0; it < maxIter; it++ {
		x, y := *v, *u
		for a := 0; a < m; a++ {
			y[a] = 0.5 * (x[a] + nv(a, x))
		}
		deflateUnit(y, t)
		diff := 0.0
		for a := range y {
			d := y[a] - x[a]
			diff += d * d
		}
		*v, *u = y, x
		if diff < tol {
			break
		}
	}
}

// sweepNcut orders the nodes by w.key and returns the prefix split with the
// smallest normalized cut of the dense affinity W.
func sweepNcut(W []float64, m int, w *bisectWork) []int8 {
	return w.sweep(m, func(a int, inA []float64) {
		for b, x := range W[a*m : (a+1)*m] {
			if b != a {
				inA[b] += x
			}
		}
	})
}

// sweepBuf is the scratch space of a sweep cut.
type sweepBuf struct {
	deg   []float64 // weighted degrees (volumes)
	key   []float64 // sort key of the sweep
	order []int32
	inA   []float64 // sum of weights to the nodes already on side A
	side  []int8
}

// sweep orders the m nodes by decreasing key (ties by index) and returns
// the split into a prefix (side +1) and the rest (-1) with the smallest
// normalized cut. addRow adds node a's affinities to the running sums inA,
// so that moving a to side A updates the cut in O(row).
func (w *sweepBuf) sweep(m int, addRow func(a int, inA []float64)) []int8 {
	w.order = vec.Resize(w.order, m)
	for a := range w.order {
		w.order[a] = int32(a)
	}
	slices.SortStableFunc(w.order, func(a, b int32) int {
		switch {
		case w.key[a] > w.key[b]:
			return -1
		case w.key[a] < w.key[b]:
			return 1
		}
		return 0
	})
	w.inA = vec.Resize(w.inA, m)
	clear(w.inA)
	vol := 0.0
	for _, d := range w.deg[:m] {
		vol += d
	}
	cut, volA := 0.0, 0.0
	best, bestK := math.Inf(1), 1
	for k := 0; k < m-1; k++ {
		a := int(w.order[k])
		// Moving a from B to A: its edges to A stop being cut, its edges to
		// the rest of B become cut.
		cut += w.deg[a] - 2*w.inA[a]
		volA += w.deg[a]
		addRow(a, w.inA)
		if nc := ncut(cut, volA, vol-volA); nc < best-1e-12 {
			best, bestK = nc, k+1
		}
	}
	w.side = vec.Resize(w.side, m)
	for a := range w.side {
		w.side[a] = -1
	}
	for _, a := range w.order[:bestK] {
		w.side[a] = 1
	}
	return w.side
}

func ncut(cut, volA, volB float64) float64 {
	if cut <= 0 {
		return 0
	}
	s := 0.0
	if volA > 0 {
		s += cut / volA
	}
	if volB > 0 {
		s += cut / volB
	}
	return s
}
