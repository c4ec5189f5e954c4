package quotient

import (
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
)

// Work is one worker's scratch space for scoring nodes.
type Work struct {
	d      int
	y      []float64 // m x d rows y_j = x_i - x_j
	proj   []float64 // y_j . u
	order  []int32
	scat   []float64 // d x d scatter matrix sum_j y_j y_j'
	vecs   []float64 // d x d eigenvectors
	u      []float64 // top eigenvector
	total  []float64 // sum_j y_j
	acc    []float64 // running sums
	signsB []int8
	bits   []uint64 // random sign words of the current and the best vector
}

// Scatter returns the scatter matrix sum_j y_j y_j' (d x d, row-major)
// of the last Differences.
func (w *Work) Scatter() []float64 { return w.scat }

// New returns the scratch space for embeddings of dimension d.
func New(d int) *Work {
	return &Work{d: d, scat: make([]float64, d*d), vecs: make([]float64, d*d),
		u: make([]float64, d), total: make([]float64, d), acc: make([]float64, d)}
}

// Node returns node i's ambiguity: the best quotient R_i found by the
// eigenvector sweep and by T random sign vectors drawn from r, optionally
// polished by single-sign flips. When b is not nil it receives the
// maximising sign vector (+1/-1 per neighbour, in the order of
// g.Neighbors(i)). Nodes without neighbours get NaN.
func Node(g *graph.Graph, X []float64, i, T int, normalize, polish bool, r *rng.SplitMix, w *Work, b []int8) float64 {
	nb := g.Neighbors(i)
	m := len(nb)
	if m == 0 {
		return math.NaN()
	}
	w.Differences(X, i, nb)
	best := w.eigenSweep(m)
	best = w.randomSigns(m, T, r, best)
	if polish && m > 1 {
		best = w.polish(m, best)
	}
	if b != nil {
		copy(b, w.signsB[:m])
	}
	scale := 1.0
	if normalize {
		scale = 1 / float64(m)
	}
	return best * scale
}

// Differences fills w.y with the rows y_j = x_i - x_j over the neighbours
// nb of i, w.total with their sum and w.scat with their scatter matrix.
func (w *Work) Differences(X []float64, i int, nb []int32) {
	m, d := len(nb), w.d
	if cap(w.y) < m*d {
		w.y = make([]float64, m*d)
		w.proj = make([]float64, m)
		w.order = make([]int32, m)
		w.signsB = make([]int8, m)
	}
	y := w.y[:m*d]
	xi := X[i*d : (i+1)*d : (i+1)*d]
	clear(w.scat)
	clear(w.total)
	for k, j := range nb {
		yk := y[k*d : (k+1)*d]
		xj := X[int(j)*d : (int(j)+1)*d : (int(j)+1)*d]
		for c := range yk {
			yk[c] = xi[c] - xj[c]
			w.total[c] += yk[c]
		}
		for p := 0; p < d; p++ {
			for q := p; q < d; q++ {
				w.scat[p*d+q] += yk[p] * yk[q]
			}
		}
	}
	for p := 0; p < d; p++ {
		for q := p + 1; q < d; q++ {
			w.scat[q*d+p] = w.scat[p*d+q]
		}
	}
}

// eigenSweep is step (b): order the m neighbours by their projection on
// the top eigenvector of the scatter matrix (equivalently, of the m x m
// Gram matrix) and try every prefix on the +1 side. It leaves the best
// prefix's sign vector in w.signsB and returns its ||sum_j b_j y_j||^2.
func (w *Work) eigenSweep(m int) float64 {
	d := w.d
	y, proj, order := w.y[:m*d], w.proj[:m], w.order[:m]
	if m > 1 { // with one neighbour the order, hence the sweep, needs no eigenvector
		TopEigenvector(w.scat, d, w.vecs, w.u)
	}
	for k := range proj {
		proj[k] = vec.Dot(y[k*d:(k+1)*d], w.u)
		order[k] = int32(k)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if proj[a] != proj[b] {
			if proj[a] > proj[b] {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	best, bestK := -1.0, 0
	clear(w.acc)
	for k := 0; k < m; k++ {
		yk := y[int(order[k])*d : (int(order[k])+1)*d]
		s := 0.0
		for c := range w.acc {
			w.acc[c] += yk[c]
			v := 2*w.acc[c] - w.total[c]
			s += v * v
		}
		if s > best {
			best, bestK = s, k+1
		}
	}
	bestB := w.signsB[:m]
	for k := range bestB {
		bestB[k] = -1
	}
	for _, o := range order[:bestK] {
		bestB[o] = 1
	}
	return best
}

// randomSigns is step (a): T random sign vectors from r; one that beats
// best replaces w.signsB. It returns the new best.
//
// Sign k of a vector is bit k&63 of the (k>>6)-th draw of r for that
// vector. The sum over the neighbours is accumulated in neighbour order
// as acc += s_k y_k with s_k = +1 or -1 (exactly acc + y_k or acc - y_k):
// no branch on the random bit. For d = 8 the sums stay in registers, and
// with AVX2 two vectors are summed at once (signedSums8x2AVX2, the same
// bits as signedSum8).
func (w *Work) randomSigns(m, T int, r *rng.SplitMix, best float64) float64 {
	words := (m + 63) >> 6
	if cap(w.bits) < 3*words {
		w.bits = make([]uint64, 3*words)
	}
	bits, next, bestBits := w.bits[:words], w.bits[words:2*words], w.bits[2*words:3*words]
	improved := false
	consider := func(s float64, bits []uint64) {
		if s > best {
			best = s
			copy(bestBits, bits)
			improved = true
		}
	}
	for t := 0; t < T; t++ {
		for k := range bits {
			bits[k] = r.Next()
		}
		if w.d == 8 && useAVX2 && t+1 < T {
			// Two vectors at once, drawn and compared in order.
			for k := range next {
				next[k] = r.Next()
			}
			var sums [2][8]float64
			signedSums8x2AVX2(&w.y[0], m, &bits[0], &next[0], &sums)
			consider(vec.Dot(sums[0][:], sums[0][:]), bits)
			consider(vec.Dot(sums[1][:], sums[1][:]), next)
			t++
			continue
		}
		var s float64
		if w.d == 8 {
			s = w.signedSum8(m, bits)
		} else {
			s = w.signedSum(m, bits)
		}
		consider(s, bits)
	}
	if improved {
		bestB := w.signsB[:m]
		for k := range bestB {
			bestB[k] = int8(bestBits[k>>6]>>(k&63)&1)*2 - 1
		}
	}
	return best
}

// signOf maps a random bit to its sign.
var signOf = [2]float64{-1, 1}

// signedSum returns ||sum_k s_k y_k||^2 for the signs in bits.
func (w *Work) signedSum(m int, bits []uint64) float64 {
	d := w.d
	y := w.y[:m*d]
	clear(w.acc)
	for k := 0; k < m; k++ {
		s := signOf[bits[k>>6]>>(k&63)&1]
		yk := y[k*d : (k+1)*d]
		for c := range w.acc {
			w.acc[c] += s * yk[c]
		}
	}
	return vec.Dot(w.acc, w.acc)
}

// signedSum8 is signedSum for d = 8.
func (w *Work) signedSum8(m int, bits []uint64) float64 {
	y := w.y[:m*8]
	var a0, a1, a2, a3, a4, a5, a6, a7 float64
	for k := 0; k < m; k++ {
		s := signOf[bits[k>>6]>>(k&63)&1]
		yk := (*[8]float64)(y[k*8 : k*8+8])
		a0 += s * yk[0]
		a1 += s * yk[1]
		a2 += s * yk[2]
		a3 += s * yk[3]
		a4 += s * yk[4]
		a5 += s * yk[5]
		a6 += s * yk[6]
		a7 += s * yk[7]
	}
	acc := [8]float64{a0, a1, a2, a3, a4, a5, a6, a7}
	return vec.Dot(acc[:], acc[:])
}

// polish is step (c): flipping b_k changes s = sum_j b_j y_j into
// s - 2 b_k y_k, and ||s||^2 by 4 (||y_k||^2 - b_k y_k.s). It takes
// improving flips of w.signsB until none is left, a local optimum that is
// never worse than its start, and returns the new best.
func (w *Work) polish(m int, best float64) float64 {
	d := w.d
	y, bestB := w.y[:m*d], w.signsB[:m]
	clear(w.acc)
	for k := 0; k < m; k++ {
		yk := y[k*d : (k+1)*d]
		for c := range w.acc {
			w.acc[c] += float64(bestB[k]) * yk[c]
		}
	}
	for improved := true; improved; {
		improved = false
		for k := 0; k < m; k++ {
			yk := y[k*d : (k+1)*d]
			gain := vec.Dot(yk, yk) - float64(bestB[k])*vec.Dot(yk, w.acc)
			if gain > 1e-12*best {
				for c := range w.acc {
					w.acc[c] -= 2 * float64(bestB[k]) * yk[c]
				}
				bestB[k] = -bestB[k]
				improved = true
			}
		}
	}
	return max(best, vec.Dot(w.acc, w.acc))
}
