package quotient

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
)

// The code of fondueNode as of 6c9321f (branchy random signs, generic
// Jacobi), kept as the reference the optimised code must match bit for bit.

// refWork is one worker's scratch space for scoring nodes.
type refWork struct {
	d      int
	y      []float64 // m x d rows y_j = x_i - x_j
	proj   []float64 // y_j . u
	order  []int32
	scat   []float64 // d x d scatter matrix sum_j y_j y_j'
	vecs   []float64 // d x d eigenvectors
	u      []float64 // top eigenvector
	total  []float64 // sum_j y_j
	acc    []float64 // running sums
	signs  []int8
	signsB []int8
}

func newRefWork(d int) *refWork {
	return &refWork{d: d, scat: make([]float64, d*d), vecs: make([]float64, d*d),
		u: make([]float64, d), total: make([]float64, d), acc: make([]float64, d)}
}

// refFondueNode returns node i's ambiguity: the best quotient R_i found by the
// eigenvector sweep and by T random sign vectors drawn from r, optionally
// polished by single-sign flips. When b is not nil it receives the
// maximising sign vector (+1/-1 per neighbour, in the order of
// g.Neighbors(i)). Nodes without neighbours get NaN.
func refFondueNode(g *graph.Graph, emb *rows, i, T int, normalize, polish bool, r *rng.SplitMix, w *refWork, b []int8) float64 {
	nb := g.Neighbors(i)
	m := len(nb)
	if m == 0 {
		return math.NaN()
	}
	w.differences(emb, i, nb)
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

// differences fills w.y with the rows y_j = x_i - x_j over the neighbours
// nb of i, w.total with their sum and w.scat with their scatter matrix.
func (w *refWork) differences(emb *rows, i int, nb []int32) {
	m, d := len(nb), w.d
	if cap(w.y) < m*d {
		w.y = make([]float64, m*d)
		w.proj = make([]float64, m)
		w.order = make([]int32, m)
		w.signs = make([]int8, m)
		w.signsB = make([]int8, m)
	}
	y := w.y[:m*d]
	xi := emb.Row(i)
	clear(w.scat)
	clear(w.total)
	for k, j := range nb {
		yk := y[k*d : (k+1)*d]
		xj := emb.Row(int(j))
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
func (w *refWork) eigenSweep(m int) float64 {
	d := w.d
	y, proj, order := w.y[:m*d], w.proj[:m], w.order[:m]
	TopEigenvector(w.scat, d, w.vecs, w.u)
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
func (w *refWork) randomSigns(m, T int, r *rng.SplitMix, best float64) float64 {
	d := w.d
	y, signs, bestB := w.y[:m*d], w.signs[:m], w.signsB[:m]
	for t := 0; t < T; t++ {
		clear(w.acc)
		var bits uint64
		for k := 0; k < m; k++ {
			if k&63 == 0 {
				bits = r.Next()
			}
			yk := y[k*d : (k+1)*d]
			if bits&1 == 1 {
				signs[k] = 1
				for c := range w.acc {
					w.acc[c] += yk[c]
				}
			} else {
				signs[k] = -1
				for c := range w.acc {
					w.acc[c] -= yk[c]
				}
			}
			bits >>= 1
		}
		s := vec.Dot(w.acc, w.acc)
		if s > best {
			best = s
			copy(bestB, signs)
		}
	}
	return best
}

// polish is step (c): flipping b_k changes s = sum_j b_j y_j into
// s - 2 b_k y_k, and ||s||^2 by 4 (||y_k||^2 - b_k y_k.s). It takes
// improving flips of w.signsB until none is left, a local optimum that is
// never worse than its start, and returns the new best.
func (w *refWork) polish(m int, best float64) float64 {
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

// TestFondueNodeMatchesReference checks that fondueNode gives the same
// score bits and the same best sign vector as the 6c9321f code, for
// dimensions with and without the d = 8 fast path, degrees on both sides of
// the 64 signs of one draw, with and without polishing and normalisation.
func TestFondueNodeMatchesReference(t *testing.T) {
	pick := rand.New(rand.NewPCG(1001, 2))
	for _, d := range []int{1, 2, 3, 8, 9} {
		for _, n := range []int{2, 5, 70, 300} {
			var edges [][2]int
			for i := 0; i < n; i++ {
				for j := i + 1; j < n; j++ {
					if pick.Float64() < min(1, 6/float64(n)) || (i == 0 && pick.Float64() < 0.8) {
						edges = append(edges, [2]int{i, j})
					}
				}
			}
			g := testkit.NewGraph(n, edges)
			emb := &rows{Dim: d, X: testkit.RandomRows(n, d, uint64(d*1000+n))}
			if d == 8 && n == 70 { // ties and zeros: coincident points
				copy(emb.Row(3), emb.Row(4))
				clear(emb.Row(5))
			}
			w, rw := New(d), newRefWork(d)
			for _, T := range []int{0, 1, 100} {
				for _, polish := range []bool{false, true} {
					for _, norm := range []bool{false, true} {
						for i := 0; i < n; i++ {
							m := g.Degree(i)
							b, rb := make([]int8, m), make([]int8, m)
							r := rng.SplitMix{S: rng.StreamSeed(7, rng.StreamSigns, uint64(i), 0)}
							rr := r
							got := Node(g, emb.X, i, T, norm, polish, &r, w, b)
							want := refFondueNode(g, emb, i, T, norm, polish, &rr, rw, rb)
							if math.Float64bits(got) != math.Float64bits(want) || !slices.Equal(b, rb) || r != rr {
								t.Fatalf("d %d n %d T %d polish %v norm %v node %d (degree %d): got %v %v, want %v %v",
									d, n, T, polish, norm, i, m, got, b, want, rb)
							}
						}
					}
				}
			}
		}
	}
}

// rows is a random embedding: n rows of Dim values.
type rows struct {
	Dim int
	X   []float64
}

func (e *rows) Row(i int) []float64 { return e.X[i*e.Dim : (i+1)*e.Dim : (i+1)*e.Dim] }
