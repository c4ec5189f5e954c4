package quotient

import (
	"math"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// The Jacobi eigensolver must agree with gonum's on random PSD matrices.
func TestTopEigenvectorMatchesGonum(t *testing.T) {
	r := rng.SplitMix{S: 11}
	for trial := 0; trial < 200; trial++ {
		d := 1 + trial%9
		m := 3 + trial%5
		a := make([]float64, d*d)
		for k := 0; k < m; k++ {
			y := make([]float64, d)
			for c := range y {
				y[c] = r.Norm()
			}
			for p := 0; p < d; p++ {
				for q := 0; q < d; q++ {
					a[p*d+q] += y[p] * y[q]
				}
			}
		}
		sym := mat.NewSymDense(d, append([]float64(nil), a...))
		var es mat.EigenSym
		if !es.Factorize(sym, true) {
			t.Fatal("gonum failed")
		}
		vals := es.Values(nil)
		var vecs mat.Dense
		es.VectorsTo(&vecs)
		want := vals[d-1]
		v := make([]float64, d)
		got := TopEigenvector(a, d, make([]float64, d*d), v)
		if math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("d=%d: eigenvalue %g, gonum %g", d, got, want)
		}
		// Same direction up to sign (when the top eigenvalue is simple).
		if d > 1 && vals[d-1]-vals[d-2] > 1e-6*want {
			c := 0.0
			for k := 0; k < d; k++ {
				c += v[k] * vecs.At(k, d-1)
			}
			if math.Abs(math.Abs(c)-1) > 1e-7 {
				t.Fatalf("d=%d: eigenvector off, |cos| = %g", d, math.Abs(c))
			}
		}
	}
}

// signedSums8x2AVX2 against signedSum8, bit for bit, for two sign vectors
// over 1 to 200 rows (one to four words, the last one partial), rows with
// zeros, negative zeros and mixed magnitudes among them.
func TestSignedSums8x2AVX2MatchesGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this machine: randomSigns runs signedSum8 alone")
	}
	r := rng.SplitMix{S: 12}
	w := New(8)
	for m := 1; m <= 200; m++ {
		w.y = make([]float64, m*8)
		for k := range w.y {
			switch k % 11 {
			case 3:
				w.y[k] = 0
			case 7:
				w.y[k] = math.Copysign(0, -1)
			default:
				w.y[k] = r.Norm() * math.Pow(10, float64(k%5-2))
			}
		}
		words := (m + 63) >> 6
		a, b := make([]uint64, words), make([]uint64, words)
		for k := range a {
			a[k], b[k] = r.Next(), r.Next()
		}
		var sums [2][8]float64
		signedSums8x2AVX2(&w.y[0], m, &a[0], &b[0], &sums)
		for v, bits := range [][]uint64{a, b} {
			want := w.signedSum8(m, bits)
			if got := vec.Dot(sums[v][:], sums[v][:]); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("m=%d, vector %d: %v, signedSum8 %v", m, v, got, want)
			}
			// the sums themselves, not only their squared norm
			var acc [8]float64
			for k := 0; k < m; k++ {
				s := signOf[bits[k>>6]>>(k&63)&1]
				for c := range acc {
					acc[c] += s * w.y[k*8+c]
				}
			}
			if acc != sums[v] {
				t.Fatalf("m=%d, vector %d: sums %v, want %v", m, v, sums[v], acc)
			}
		}
	}
}
