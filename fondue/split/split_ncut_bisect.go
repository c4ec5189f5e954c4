package split

// Step 3 of the ncut splitter (see the package documentation): the
// normalized-cut bisection of the sparse affinity of step 2.

import (
	"math"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// ncutExactMax is the largest ego network whose relaxation is solved with a
// dense eigensolver; larger ones use power iteration on the sparse matrix.
const ncutExactMax = 300

// ncutSpectral is the scratch space of the bisection: the sweep's, the
// inverse square roots of the volumes, the relaxed solution v (u and top
// for power iteration) and the dense eigensolver's.
type ncutSpectral struct {
	sweepBuf
	isq, v, u, top []float64
	sym            *mat.SymDense
	eig            mat.EigenSym
	vecs           mat.Dense
}

// bisect returns the normalized-cut bisection (+1/−1 per local index) of
// the affinity built by affinity; the result aliases w.
func (w *ncutWork) bisect(m int) []int8 {
	aff, s := &w.aff, &w.cut
	s.deg = vec.Resize(s.deg, m)
	s.isq = vec.Resize(s.isq, m)
	total := 0.0
	for a := 0; a < m; a++ {
		sum := 0.0
		for p := aff.off[a]; p < aff.off[a+1]; p++ {
			sum += aff.val[p]
		}
		s.deg[a] = sum
		total += sum
		s.isq[a] = 0
		if sum > 0 {
			s.isq[a] = 1 / math.Sqrt(sum)
		}
	}
	s.key = vec.Resize(s.key, m)
	if total == 0 {
		for a := range s.key {
			s.key[a] = float64(-a)
		}
	} else {
		s.fiedler(aff, m)
		for a := 0; a < m; a++ {
			s.key[a] = s.v[a] * s.isq[a]
		}
	}
	// Sweep: sides by decreasing key; keep the prefix of least Ncut.
	return s.sweep(m, func(a int, inA []float64) {
		for p := aff.off[a]; p < aff.off[a+1]; p++ {
			inA[aff.col[p]] += aff.val[p]
		}
	})
}

// fiedler writes into s.v the eigenvector of the second largest eigenvalue
// of N = D^-1/2 W D^-1/2 (the largest is 1, eigenvector D^1/2·1) for the
// affinity W of aff: with a dense eigensolver up to ncutExactMax nodes,
// else by power iteration on (N+I)/2 with the top eigenvector deflated,
// from a fixed start. Its sign is fixed so that the first clearly nonzero
// entry is positive.
func (s *ncutSpectral) fiedler(aff *ncutAffinity, m int) {
	s.v = vec.Resize(s.v, m)
	done := false
	if m <= ncutExactMax {
		if s.sym == nil || s.sym.SymmetricDim() != m {
			s.sym = mat.NewSymDense(m, nil)
		} else {
			s.sym.Zero()
		}
		for a := 0; a < m; a++ {
			for p := aff.off[a]; p < aff.off[a+1]; p++ {
				if b := int(aff.col[p]); b > a {
					s.sym.SetSym(a, b, aff.val[p]*s.isq[a]*s.isq[b])
				}
			}
		}
		if s.eig.Factorize(s.sym, true) {
			s.vecs.Reset()
			s.eig.VectorsTo(&s.vecs)
			for a := 0; a < m; a++ {
				s.v[a] = s.vecs.At(a, m-2) // eigenvalues ascend
			}
			done = true
		}
	}
	if !done {
		powerFiedler(m, s.deg, &s.v, &s.u, &s.top, 0x6e637574 /* "ncut" */, 2000, 1e-20,
			func(a int, v []float64) float64 {
				sum := 0.0
				for p := aff.off[a]; p < aff.off[a+1]; p++ {
					b := aff.col[p]
					sum += aff.val[p] * s.isq[b] * v[b]
				}
				return sum * s.isq[a]
			})
	}
	for a := 0; a < m; a++ {
		if math.Abs(s.v[a]) > 1e-9 {
			if s.v[a] < 0 {
				for b := range s.v {
					s.v[b] = -s.v[b]
				}
			}
			break
		}
	}
}

// deflateUnit removes from x its component along the unit vector top and
// normalises it.
func deflateUnit(x, top []float64) {
	p := vec.Dot(x, top)
	s := 0.0
	for a := range x {
		x[a] -= p * top[a]
		s += x[a] * x[a]
	}
	if s = math.Sqrt(s); s > 0 {
		for a := range x {
			x[a] /= s
		}
	}
}
