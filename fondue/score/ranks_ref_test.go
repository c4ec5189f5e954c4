package score

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The rank helpers as of 6c9321f (stable sorts of indices), the reference
// for the pair sorts that replaced them.

func refRankDescending(scores []float64) []int {
	idx := make([]int, 0, len(scores))
	for i, s := range scores {
		if !math.IsNaN(s) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	return idx
}

func refAverageRanks(x []float64, ok []bool) []float64 {
	idx := make([]int, 0, len(x))
	for k := range x {
		if ok[k] {
			idx = append(idx, k)
		}
	}
	slices.SortStableFunc(idx, func(p, q int) int {
		switch {
		case x[p] < x[q]:
			return -1
		case x[p] > x[q]:
			return 1
		}
		return 0
	})
	out := make([]float64, len(x))
	cnt := float64(len(idx))
	for s := 0; s < len(idx); {
		e := s
		for e < len(idx) && x[idx[e]] == x[idx[s]] {
			e++
		}
		mid := float64(s+1+e) / 2
		for _, k := range idx[s:e] {
			out[k] = mid / cnt
		}
		s = e
	}
	return out
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestRanksMatchReference checks rankDescending, averageRanks and
// combineRanks on the percentiles of the stable-sort code of 6c9321f, bit for bit, on
// values with many ties, -0 and +0, infinities and NaN.
func TestRanksMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1001, 5))
	pool := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, math.Inf(1), math.Inf(-1), math.NaN(), 1e-300, 2}
	for trial := 0; trial < 400; trial++ {
		n := rng.IntN(3000)
		a, b := make([]float64, n), make([]float64, n)
		for k := range a {
			if rng.IntN(2) == 0 {
				a[k] = pool[rng.IntN(len(pool))]
			} else {
				a[k] = float64(rng.IntN(50)) / 7
			}
			if rng.IntN(3) == 0 {
				b[k] = pool[rng.IntN(len(pool))]
			} else {
				b[k] = rng.Float64()
			}
		}
		if !slices.Equal(Ranking(a), refRankDescending(a)) {
			t.Fatalf("trial %d: rankDescending differs", trial)
		}
		ok := make([]bool, n)
		for k := range ok {
			ok[k] = !math.IsNaN(a[k]) && !math.IsNaN(b[k])
		}
		if !bitsEqual(averageRanks(a, ok), refAverageRanks(a, ok)) || !bitsEqual(averageRanks(b, ok), refAverageRanks(b, ok)) {
			t.Fatalf("trial %d: averageRanks differs", trial)
		}
		got := combineRanks(a, b, 1)
		pa, pb := refAverageRanks(a, ok), refAverageRanks(b, ok)
		count := 0.0
		for _, v := range ok {
			if v {
				count++
			}
		}
		for k := range got {
			want := math.NaN()
			if ok[k] {
				want = (normalQuantile(pa[k]-0.5/count) + normalQuantile(pb[k]-0.5/count)) / 2
			}
			if math.Float64bits(got[k]) != math.Float64bits(want) {
				t.Fatalf("trial %d: combineRanks[%d] = %v, want %v", trial, k, got[k], want)
			}
		}
	}
}
