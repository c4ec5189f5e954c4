package eval

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
)

// TieMode says how AUC counts a positive and a negative with equal scores.
// Degree and CC scores are small integers with many ties, and the choice moves
// their AUC by up to 0.4 (method.md §9), so it has to be explicit.
type TieMode int

const (
	// TiesAverage counts a tied positive–negative pair as half a win: the
	// Mann–Whitney statistic with average ranks, the usual ROC AUC (what
	// sklearn.metrics.roc_auc_score reports).
	TiesAverage TieMode = iota
	// TiesAsLoss counts a tied pair as a loss for the positive. This
	// reproduces the paper's CC and degree columns (method.md §9); use it only
	// to compare with the paper, and say so.
	TiesAsLoss
)

// String returns "average" or "loss".
func (m TieMode) String() string {
	switch m {
	case TiesAverage:
		return "average"
	case TiesAsLoss:
		return "loss"
	}
	return fmt.Sprintf("TieMode(%d)", int(m))
}

// metricItem is one scored, labelled node; NaN scores never get here.
type metricItem struct {
	s   float64
	pos bool
}

// metricSorted drops NaN scores (with their labels) and sorts the rest by
// score, ascending or descending. Equal scores are grouped by the callers, so
// their order within a tie does not matter. Scores and labels of different
// lengths are an *OptionsError.
func metricSorted(scores []float64, labels []bool, desc bool) (items []metricItem, npos, nneg int, err error) {
	if len(scores) != len(labels) {
		return nil, 0, 0, &fondue.OptionsError{Msg: fmt.Sprintf("eval: %d scores but %d labels", len(scores), len(labels))}
	}
	items = make([]metricItem, 0, len(scores))
	for k, s := range scores {
		if math.IsNaN(s) {
			continue
		}
		items = append(items, metricItem{s, labels[k]})
		if labels[k] {
			npos++
		} else {
			nneg++
		}
	}
	slices.SortFunc(items, func(a, b metricItem) int {
		if desc {
			return cmp.Compare(b.s, a.s)
		}
		return cmp.Compare(a.s, b.s)
	})
	return items, npos, nneg, nil
}

// metricTieEnd returns the end of the block of items equal in score to
// items[start].
func metricTieEnd(items []metricItem, start int) int {
	end := start + 1
	for end < len(items) && items[end].s == items[start].s {
		end++
	}
	return end
}

// AUC returns the area under the ROC curve of scores (higher = more likely
// positive) against labels: the fraction of positive–negative pairs in which
// the positive scores higher, ties counted as ties says. Nodes with a NaN
// score are left out together with their labels (isolated nodes have no
// baseline score); the result is NaN when no positive or no negative is left.
// O(n log n). Scores and labels of different lengths, or an unknown tie
// mode, are an *OptionsError.
func AUC(scores []float64, labels []bool, ties TieMode) (float64, error) {
	if ties != TiesAverage && ties != TiesAsLoss {
		return 0, &fondue.OptionsError{Msg: fmt.Sprintf("eval: invalid tie mode %d", int(ties))}
	}
	items, npos, nneg, err := metricSorted(scores, labels, false)
	if err != nil {
		return 0, err
	}
	if npos == 0 || nneg == 0 {
		return math.NaN(), nil
	}
	// wins2 counts twice the wins, so that half wins stay integers.
	var wins2, negBelow int64
	for start := 0; start < len(items); {
		end := metricTieEnd(items, start)
		var p, q int64
		for _, it := range items[start:end] {
			if it.pos {
				p++
			} else {
				q++
			}
		}
		wins2 += 2 * p * negBelow
		if ties == TiesAverage {
			wins2 += p * q
		}
		negBelow += q
		start = end
	}
	return float64(wins2) / (2 * float64(npos) * float64(nneg)), nil
}

// ROC returns the points of the ROC curve, from (0,0) to (1,1), lowering the
// threshold one distinct score at a time: nodes with equal scores enter
// together, giving one diagonal step, as a plot of AUC with average ties
// needs. NaN scores are left out as in AUC; with no positive or no negative
// both slices are nil. Scores and labels of different lengths are an
// *OptionsError.
func ROC(scores []float64, labels []bool) (fpr, tpr []float64, err error) {
	items, npos, nneg, err := metricSorted(scores, labels, true)
	if err != nil || npos == 0 || nneg == 0 {
		return nil, nil, err
	}
	fpr, tpr = []float64{0}, []float64{0}
	tp, fp := 0, 0
	for start := 0; start < len(items); {
		end := metricTieEnd(items, start)
		for _, it := range items[start:end] {
			if it.pos {
				tp++
			} else {
				fp++
			}
		}
		fpr = append(fpr, float64(fp)/float64(nneg))
		tpr = append(tpr, float64(tp)/float64(npos))
		start = end
	}
	return fpr, tpr, nil
}

// NDCG returns the normalised discounted cumulative gain of the ranking by
// score (descending) with binary relevance labels: DCG = Σ_r rel_r/log2(r+1)
// over 1-based ranks r, divided by the DCG of the ideal ranking (all
// positives first). Within a block of tied scores every position gets the
// block's average gain (the positives in the block over its size), as
// sklearn's ndcg_score does by default, so the value does not depend on the
// input order and a constant score is not rewarded for a lucky order. NaN
// scores are left out as in AUC; with no positive left the result is NaN.
// Scores and labels of different lengths are an *OptionsError.
func NDCG(scores []float64, labels []bool) (float64, error) {
	items, npos, _, err := metricSorted(scores, labels, true)
	if err != nil {
		return 0, err
	}
	if npos == 0 {
		return math.NaN(), nil
	}
	disc := func(r int) float64 { return 1 / math.Log2(float64(r)+1) }
	ideal := 0.0
	for r := 1; r <= npos; r++ {
		ideal += disc(r)
	}
	dcg := 0.0
	for start := 0; start < len(items); {
		end := metricTieEnd(items, start)
		p := 0
		for _, it := range items[start:end] {
			if it.pos {
				p++
			}
		}
		if p > 0 {
			d := 0.0
			for r := start + 1; r <= end; r++ {
				d += disc(r)
			}
			dcg += float64(p) / float64(end-start) * d
		}
		start = end
	}
	return dcg / ideal, nil
}

// ARI returns the adjusted Rand index of two labelings of the same items
// (arbitrary integer labels), with sklearn's adjusted_rand_score semantics:
// 1 for identical partitions up to relabelling, which includes the cases
// sklearn singles out (both one cluster, both all singletons, n ≤ 1); about
// 0 for independent labelings; negative below chance. It is the splitting
// metric of [P §3.3]. The pair counts are int64 and the products 128-bit, so
// it is exact up to the final division for any n below 3·10⁹. Labelings
// of different lengths are an *OptionsError.
func ARI(a, b []int) (float64, error) {
	if len(a) != len(b) {
		return 0, &fondue.OptionsError{Msg: fmt.Sprintf("eval: labelings of length %d and %d", len(a), len(b))}
	}
	n := int64(len(a))
	cells := map[[2]int]int64{}
	rows := map[int]int64{}
	cols := map[int]int64{}
	for k := range a {
		cells[[2]int{a[k], b[k]}]++
		rows[a[k]]++
		cols[b[k]]++
	}
	sq := func(m map[int]int64) int64 {
		s := int64(0)
		for _, c := range m {
			s += c * c
		}
		return s
	}
	var both int64 // Σ n_ij²
	for _, c := range cells {
		both += c * c
	}
	// Ordered pairs (i≠j) of the pair confusion matrix, as sklearn's
	// pair_confusion_matrix.
	tp := both - n
	fn := sq(rows) - both // together in a, apart in b
	fp := sq(cols) - both // apart in a, together in b
	tn := n*n - fp - fn - both
	if fn == 0 && fp == 0 {
		return 1, nil
	}
	num := metricMulSub(tp, tn, fn, fp)
	den := metricU128Float(metricAdd128(metricMul(tp+fn, fn+tn), metricMul(tp+fp, fp+tn)))
	return 2 * num / den, nil
}

type metricU128 struct{ hi, lo uint64 }

func metricMul(x, y int64) metricU128 {
	hi, lo := bits.Mul64(uint64(x), uint64(y))
	return metricU128{hi, lo}
}

func metricAdd128(x, y metricU128) metricU128 {
	lo, c := bits.Add64(x.lo, y.lo, 0)
	hi, _ := bits.Add64(x.hi, y.hi, c)
	return metricU128{hi, lo}
}

func metricU128Float(x metricU128) float64 {
	return float64(x.hi)*0x1p64 + float64(x.lo)
}

// metricMulSub returns a·b − c·d for non-negative a, b, c, d, exactly up to
// the conversion to float64.
func metricMulSub(a, b, c, d int64) float64 {
	x, y := metricMul(a, b), metricMul(c, d)
	neg := x.hi < y.hi || (x.hi == y.hi && x.lo < y.lo)
	if neg {
		x, y = y, x
	}
	lo, borrow := bits.Sub64(x.lo, y.lo, 0)
	hi, _ := bits.Sub64(x.hi, y.hi, borrow)
	v := metricU128Float(metricU128{hi, lo})
	if neg {
		return -v
	}
	return v
}
