package bench

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/eval"
)

// The metrics of real ambiguity, as the data's README defines them. They
// take parallel slices over the names evaluated; a NaN score leaves its
// name out.

// DegreeBin is the bin of AUCWithinBins: floor(log2(degree)), -1 below 1.
func DegreeBin(degree int) int {
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
		b := bins[DegreeBin(degree[k])]
		if b == nil {
			b = &bin{}
			bins[DegreeBin(degree[k])] = b
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

// SplitARI scores a proposed split of one name against the truth: the
// adjusted Rand index of the groups against the persons over the name's
// neighbours that appear with exactly one person (those with several or
// none are left out). A neighbour missing from the groups counts as a group
// of its own. It also returns the number of neighbours evaluated and of
// distinct persons among them; ok is false when they span fewer than two
// persons (the name is not evaluated).
func SplitARI(neighbours []LabelledNeighbour, groupOf map[string]int) (ari float64, evaluated, persons int, ok bool) {
	var truth, pred []int
	personIndex := map[string]int{}
	for k, nb := range neighbours {
		if len(nb.Persons) != 1 {
			continue
		}
		p, seen := personIndex[nb.Persons[0]]
		if !seen {
			p = len(personIndex)
			personIndex[nb.Persons[0]] = p
		}
		g, in := groupOf[nb.Neighbour]
		if !in {
			g = -1 - k // a group of its own
		}
		truth, pred = append(truth, p), append(pred, g)
	}
	if len(personIndex) < 2 {
		return math.NaN(), len(truth), len(personIndex), false
	}
	ari, _ = eval.ARI(truth, pred) // a label of each per neighbour: no error
	return ari, len(truth), len(personIndex), true
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

// meanInts is the mean of xs (NaN for none).
func meanInts(xs []int) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0
	for _, x := range xs {
		s += x
	}
	return float64(s) / float64(len(xs))
}

// meanFloats is the mean of xs (NaN for none).
func meanFloats(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
