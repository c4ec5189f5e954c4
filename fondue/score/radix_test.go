package score

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRadixIndicesMatchCompare checks the radix sort of sortedIndices
// against the comparison sort it replaces for long inputs, on values with
// ties, -0 and +0, infinities, NaN and random bit patterns, with and
// without a mask, in both directions.
func TestRadixIndicesMatchCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pool := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, math.Inf(1), math.Inf(-1), math.NaN(),
		math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0xfff8000000000000),
		5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64, 1e-300, 2}
	sizes := []int{0, 1, 2, 3, 17, 255, 256, 257, 1000, radixMin - 1, radixMin, radixMin + 1, 20000}
	for trial := 0; trial < 300; trial++ {
		n := sizes[trial%len(sizes)]
		if trial >= 2*len(sizes) {
			n = rng.IntN(3 * radixMin)
		}
		x := make([]float64, n)
		kind := trial % 5
		for k := range x {
			switch {
			case kind == 0: // few distinct values: long ties
				x[k] = pool[rng.IntN(len(pool))]
			case kind == 1: // any bits, NaNs included
				x[k] = math.Float64frombits(rng.Uint64())
			case kind == 2: // one sign and exponent: the high bytes shared
				x[k] = 1 + rng.Float64()
			case kind == 3:
				x[k] = float64(rng.IntN(50)-25) / 7
			default:
				if rng.IntN(4) == 0 {
					x[k] = pool[rng.IntN(len(pool))]
				} else {
					x[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
				}
			}
		}
		var ok []bool
		if trial%2 == 1 {
			ok = make([]bool, n)
			for k := range ok {
				ok[k] = rng.IntN(5) != 0
			}
		}
		for _, desc := range []bool{false, true} {
			want := compareIndices(x, ok, desc)
			if got := radixIndices(x, ok, desc); !slices.Equal(got, want) {
				t.Fatalf("trial %d (n %d, kind %d, descending %v): radix order differs", trial, n, kind, desc)
			}
			if got := sortedIndices(x, ok, desc); !slices.Equal(got, want) {
				t.Fatalf("trial %d (n %d, kind %d, descending %v): sortedIndices differs", trial, n, kind, desc)
			}
		}
	}
}

// TestRadixIndicesAllShared covers inputs whose keys share every byte (one
// value, and -0 with +0), where every pass is skipped.
func TestRadixIndicesAllShared(t *testing.T) {
	for _, v := range []float64{3, 0, math.Inf(-1)} {
		x := make([]float64, 50)
		for k := range x {
			x[k] = v
			if v == 0 && k%3 == 0 {
				x[k] = math.Copysign(0, -1)
			}
		}
		x[7] = math.NaN()
		for _, desc := range []bool{false, true} {
			if got, want := radixIndices(x, nil, desc), compareIndices(x, nil, desc); !slices.Equal(got, want) {
				t.Fatalf("value %v, descending %v: %v, want %v", v, desc, got, want)
			}
		}
	}
}
