package metrics

import (
	"cmp"
	"math"
	"slices"
)

// The metrics of a ranking of candidate pairs against duplicate truth
// (bench/README.md, "Duplicates"): scores and pos are parallel over the
// pairs ranked (higher score first); total is the number of truth pairs,
// retrieved or not. Equal scores are one block: a cut falls only between
// distinct scores, and a block's hits are credited with the precision at
// its end (as scikit-learn's average_precision_score).

// rankedBlock is one block of equal scores, best first.
type rankedBlock struct {
	score      float64
	size, hits int
}

// blocks groups the pairs by score, best first (NaN scores left out).
func blocks(scores []float64, pos []bool) []rankedBlock {
	idx := make([]int, 0, len(scores))
	for i, s := range scores {
		if !math.IsNaN(s) {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	var out []rankedBlock
	for _, i := range idx {
		if len(out) == 0 || out[len(out)-1].score != scores[i] {
			out = append(out, rankedBlock{score: scores[i]})
		}
		b := &out[len(out)-1]
		b.size++
		if pos[i] {
			b.hits++
		}
	}
	return out
}

// AveragePrecision is the sum over the truth pairs retrieved of the
// precision at their rank, divided by total (pairs not retrieved count as
// missed, precision 0). NaN when total is 0.
func AveragePrecision(scores []float64, pos []bool, total int) float64 {
	if total <= 0 {
		return math.NaN()
	}
	ap, ranked, hits := 0.0, 0, 0
	for _, b := range blocks(scores, pos) {
		ranked += b.size
		hits += b.hits
		ap += float64(b.hits) * float64(hits) / float64(ranked)
	}
	return ap / float64(total)
}

// RecallAtPrecision is the largest recall (hits / total) reached at a cut
// whose precision is at least p; 0 when no cut reaches p. NaN when total
// is 0.
func RecallAtPrecision(scores []float64, pos []bool, total int, p float64) float64 {
	if total <= 0 {
		return math.NaN()
	}
	best, ranked, hits := 0.0, 0, 0
	for _, b := range blocks(scores, pos) {
		ranked += b.size
		hits += b.hits
		if float64(hits) >= p*float64(ranked) {
			best = max(best, float64(hits)/float64(total))
		}
	}
	return best
}

// Clustering is the best pairwise F1 of the entities the pairs above a
// threshold form, and where it is reached.
type Clustering struct {
	F1        float64 `json:"f1"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	Threshold float64 `json:"threshold"` // pairs with a score >= Threshold are joined
	Pairs     int     `json:"pairs"`     // node pairs in one entity at the threshold
}

// BestClusterF1 joins the pairs (node indices into person) best score
// first, a block of equal scores at a time; after each block the entities
// are the connected components, and every pair of nodes in one entity is
// a predicted pair: right when both nodes have the same person >= 0
// (a node with person < 0 is one of no truth pair). Precision and recall
// are pairwise, recall over truthPairs; the best F1 over the cuts is
// returned (the zero Clustering when none has a right pair).
func BestClusterF1(pairs [][2]int, scores []float64, person []int, truthPairs int) Clustering {
	order := make([]int, 0, len(pairs))
	for i, s := range scores {
		if !math.IsNaN(s) {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	n := len(person)
	parent := make([]int, n)
	size := make([]int, n)
	count := make([]map[int]int, n) // root -> persons' node counts (nil: none)
	for i := range parent {
		parent[i], size[i] = i, 1
		if person[i] >= 0 {
			count[i] = map[int]int{person[i]: 1}
		}
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	var best Clustering
	predicted, right := 0, 0
	for k := 0; k < len(order); {
		s := scores[order[k]]
		for ; k < len(order) && scores[order[k]] == s; k++ {
			a, b := find(pairs[order[k]][0]), find(pairs[order[k]][1])
			if a == b {
				continue
			}
			if len(count[a]) < len(count[b]) {
				a, b = b, a
			}
			predicted += size[a] * size[b]
			for p, c := range count[b] {
				right += c * count[a][p]
			}
			if count[a] == nil && count[b] != nil {
				count[a] = map[int]int{}
			}
			for p, c := range count[b] {
				count[a][p] += c
			}
			count[b] = nil
			parent[b] = a
			size[a] += size[b]
		}
		if right == 0 || truthPairs == 0 {
			continue
		}
		prec, rec := float64(right)/float64(predicted), float64(right)/float64(truthPairs)
		if f1 := 2 * prec * rec / (prec + rec); f1 > best.F1 {
			best = Clustering{F1: f1, Precision: prec, Recall: rec, Threshold: s, Pairs: predicted}
		}
	}
	return best
}
