package metrics

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/eval"
)

// degreeBin is the bin of AUCWithinBins: floor(log2(degree)), -1 below 1.
func degreeBin(degree int) int {
	if degree < 1 {
		return -1
	}
	return bits.Len(uint(degree)) - 1
}

// AUCWithinBins is the ROC AUC (ties by average rank) over only the
// positive–negative pairs whose degrees fall in the same bin
// floor(log2(degree)), pooled over the bins: each bin's AUC weighted by its
// number of pairs. It says what a score knows beyond degree. NaN when no
// bin has a positive and a negative.
func AUCWithinBins(scores []float64, pos []bool, degree []int) float64 {
	type bin struct {
		s []float64
		l []bool
	}
	bins := map[int]*bin{}
	for k, s := range scores {
		if math.IsNaN(s) {
			continue
		}
		b := bins[degreeBin(degree[k])]
		if b == nil {
			b = &bin{}
			bins[degreeBin(degree[k])] = b
		}
		b.s, b.l = append(b.s, s), append(b.l, pos[k])
	}
	var wins, pairs float64
	for _, b := range bins {
		np := 0
		for _, p := range b.l {
			if p {
				np++
			}
		}
		nn := len(b.l) - np
		if np == 0 || nn == 0 {
			continue
		}
		n := float64(np) * float64(nn)
		auc, _ := eval.AUC(b.s, b.l, eval.TiesAverage) // a score and a label per entry: no error
		wins += auc * n
		pairs += n
	}
	if pairs == 0 {
		return math.NaN()
	}
	return wins / pairs
}

// PrecisionAt is the share of positives among the k highest scores, k
// capped at the number of scored names; ties at the cut are broken by
// expectation: a block of equal scores straddling it contributes its share
// of positives times the places it takes. NaN with nothing scored.
func PrecisionAt(scores []float64, pos []bool, k int) float64 {
	type item struct {
		s   float64
		pos bool
	}
	var items []item
	for i, s := range scores {
		if !math.IsNaN(s) {
			items = append(items, item{s, pos[i]})
		}
	}
	k = min(k, len(items))
	if k <= 0 {
		return math.NaN()
	}
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(b.s, a.s) })
	hits, taken := 0.0, 0
	for start := 0; start < len(items) && taken < k; {
		end, p := start, 0
		for end < len(items) && items[end].s == items[start].s {
			if items[end].pos {
				p++
			}
			end++
		}
		take := min(end-start, k-taken)
		hits += float64(take) * float64(p) / float64(end-start)
		taken += take
		start = end
	}
	return hits / float64(k)
}

// CountErrors compares estimated counts with true ones: the share of exact
// estimates and the mean absolute error (NaN for no pair).
func CountErrors(est, truth []int) (exact, mae float64) {
	if len(est) == 0 {
		return math.NaN(), math.NaN()
	}
	for k := range est {
		d := est[k] - truth[k]
		if d == 0 {
			exact++
		}
		mae += math.Abs(float64(d))
	}
	n := float64(len(est))
	return exact / n, mae / n
}
