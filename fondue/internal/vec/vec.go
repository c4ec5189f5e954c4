package vec

import "math"

// Resize returns s with length n, reusing its storage when it can. The
// contents are not cleared.
func Resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, GrowCap(n))
	}
	return s[:n]
}

// Search returns the first index of s whose value is >= v (len(s) if
// none), like sort.Search, without the closure call.
func Search(s []int32, v int32) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// GrowCap rounds a requested capacity up so that buffers grown one ego net at
// a time reach their final size after O(log) reallocations.
func GrowCap(n int) int {
	c := 16
	for c < n {
		c += c / 2
	}
	return c
}

// Dot returns the dot product of a and b (len(a) entries).
func Dot(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

// SqDist returns ||a - b||^2, summed in coordinate order.
func SqDist(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for k := range a {
		t := a[k] - b[k]
		s += t * t
	}
	return s
}

// QuickMedian returns the lower median of x, reordering x.
func QuickMedian(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	k := (len(x) - 1) / 2
	lo, hi := 0, len(x)-1
	for lo < hi {
		p := x[(lo+hi)/2]
		a, b := lo, hi
		for a <= b {
			for x[a] < p {
				a++
			}
			for x[b] > p {
				b--
			}
			if a <= b {
				x[a], x[b] = x[b], x[a]
				a++
				b--
			}
		}
		switch {
		case k <= b:
			hi = b
		case k >= a:
			lo = a
		default:
			return x[k]
		}
	}
	return x[k]
}
