package metrics

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
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
	return MeanAt(scores, func(i int) float64 { return b2f(pos[i]) }, k)
}

// MeanAt is the mean of value over the k highest scores (NaN scores left
// out), k capped at the number scored, ties at the cut broken by
// expectation as in PrecisionAt. NaN with nothing scored.
func MeanAt(scores []float64, value func(i int) float64, k int) float64 {
	type item struct {
		s, v float64
	}
	var items []item
	for i, s := range scores {
		if !math.IsNaN(s) {
			items = append(items, item{s, value(i)})
		}
	}
	k = min(k, len(items))
	if k <= 0 {
		return math.NaN()
	}
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(b.s, a.s) })
	sum, taken := 0.0, 0
	for start := 0; start < len(items) && taken < k; {
		end, v := start, 0.0
		for end < len(items) && items[end].s == items[start].s {
			v += items[end].v
			end++
		}
		take := min(end-start, k-taken)
		sum += float64(take) * v / float64(end-start)
		taken += take
		start = end
	}
	return sum / float64(k)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Top is what the head of a ranking holds: the precision where people
// look, beside what a random order would give, and whether the head is
// hubs rather than positives.
type Top struct {
	P20    float64 `json:"p20"`     // precision at 20
	P100   float64 `json:"p100"`    // precision at 100
	P1     float64 `json:"p1pct"`   // precision at 1% of the ranked (OnePercent)
	Random float64 `json:"random"`  // the positives' share of the ranked: any precision of a random order
	Deg100 float64 `json:"deg100"`  // mean degree of the 100 highest
	Deg1   float64 `json:"deg1pct"` // mean degree of the top 1%
	PosDeg float64 `json:"pos_deg"` // mean degree of the ranked positives
	Ranked int     `json:"ranked"`  // nodes with a score
}

// HubFactor is how many times the positives' mean degree the head's may
// reach before Top.Hubs names it.
const HubFactor = 2

// Hubs reports a head full of hubs: the mean degree of the top 100 or of
// the top 1% over HubFactor times the positives'.
func (t Top) Hubs() bool {
	return t.Deg100 > HubFactor*t.PosDeg || t.Deg1 > HubFactor*t.PosDeg
}

// OnePercent is the number of places of 1% of n ranked nodes: n/100
// rounded up, at least 1.
func OnePercent(n int) int { return max(1, (n+99)/100) }

// TopOf measures the head of the ranking of scores (NaN: not ranked)
// against pos, with the nodes' degrees; the zero Top when nothing is
// ranked, PosDeg 0 without positives (finite numbers: JSON holds them).
func TopOf(scores []float64, pos []bool, degree []int) Top {
	t := Top{}
	np, sd := 0, 0.0
	for i, s := range scores {
		if math.IsNaN(s) {
			continue
		}
		t.Ranked++
		if pos[i] {
			np++
			sd += float64(degree[i])
		}
	}
	if t.Ranked == 0 {
		return t // Ranked 0 says there is nothing to read
	}
	t.Random = float64(np) / float64(t.Ranked)
	if np > 0 {
		t.PosDeg = sd / float64(np)
	}
	k1 := OnePercent(t.Ranked)
	deg := func(i int) float64 { return float64(degree[i]) }
	t.P20, t.P100, t.P1 = PrecisionAt(scores, pos, 20), PrecisionAt(scores, pos, 100), PrecisionAt(scores, pos, k1)
	t.Deg100, t.Deg1 = MeanAt(scores, deg, 100), MeanAt(scores, deg, k1)
	return t
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
