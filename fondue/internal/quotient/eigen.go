package quotient

import "math"

// TopEigenvector writes into v a unit eigenvector of the largest eigenvalue of
// the symmetric d x d matrix a (row-major), and returns that eigenvalue. a is
// destroyed; vecs must have room for d*d values. It uses cyclic Jacobi
// rotations: for the 8 x 8 matrices of FONDUE this is exact to rounding,
// allocation-free and deterministic, which an iterative method with a
// tolerance would not be.
func TopEigenvector(a []float64, d int, vecs, v []float64) float64 {
	clear(vecs[:d*d])
	for i := 0; i < d; i++ {
		vecs[i*d+i] = 1
	}
	for sweep := 0; sweep < 64; sweep++ {
		off := 0.0
		for p := 0; p < d; p++ {
			for q := p + 1; q < d; q++ {
				off += a[p*d+q] * a[p*d+q]
			}
		}
		if off == 0 || (sweep > 0 && off < 1e-30*diagNorm2(a, d)) {
			break
		}
		for p := 0; p < d; p++ {
			for q := p + 1; q < d; q++ {
				apq := a[p*d+q]
				if apq == 0 {
					continue
				}
				// Rotation that zeroes a[p][q] (Golub & Van Loan, 8.5.2).
				theta := (a[q*d+q] - a[p*d+p]) / (2 * apq)
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < d; k++ {
					akp, akq := a[k*d+p], a[k*d+q]
					a[k*d+p] = c*akp - s*akq
					a[k*d+q] = s*akp + c*akq
				}
				for k := 0; k < d; k++ {
					apk, aqk := a[p*d+k], a[q*d+k]
					a[p*d+k] = c*apk - s*aqk
					a[q*d+k] = s*apk + c*aqk
				}
				for k := 0; k < d; k++ {
					vkp, vkq := vecs[k*d+p], vecs[k*d+q]
					vecs[k*d+p] = c*vkp - s*vkq
					vecs[k*d+q] = s*vkp + c*vkq
				}
			}
		}
	}
	best := 0
	for i := 1; i < d; i++ {
		if a[i*d+i] > a[best*d+best] {
			best = i
		}
	}
	for k := 0; k < d; k++ {
		v[k] = vecs[k*d+best]
	}
	return a[best*d+best]
}

func diagNorm2(a []float64, d int) float64 {
	s := 0.0
	for i := 0; i < d; i++ {
		s += a[i*d+i] * a[i*d+i]
	}
	return s
}
