package score

import (
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// Sure says how far the top of a combined ranking stands above chance:
// of the Top highest-ranked nodes, how many would rank as high if FONDUE
// and the graph evidence were unrelated beyond the degree (Chance). The null pairs each node's FONDUE and degree terms with the
// evidence of another node of its degree bin, drawn by shuffling the
// evidence within every bin (sureShuffles shuffles, seeded); Chance is
// the mean count of null scores at or above the Top-th score. It is the
// expected number of false places in the top, in the sense of a
// target-decoy estimate: the places the two signals do not earn by
// agreeing. It says nothing of what both signals miss.
type Sure struct {
	Top    int     `json:"top"`    // places measured, at least 1
	Chance float64 `json:"chance"` // how many of them the null fills, on average
	// OnePercent marks the top 1% of the scored nodes (ambiguity > 0.99,
	// count/100 rounded up); else Top is a fixed number of places.
	OnePercent bool `json:"onePercent,omitempty"`
}

// Share is the share of the top that chance does not explain,
// 1 − Chance/Top within [0, 1]: an estimate of the precision of the top,
// counting as right what both signals agree on.
func (s Sure) Share() float64 {
	if s.Top == 0 {
		return 0
	}
	return math.Max(0, 1-s.Chance/float64(s.Top))
}

// Separated reports a top that chance explains less than half of: most
// of its places are earned by the two signals agreeing, so its nodes are
// more likely flagged by both than by chance. Otherwise the top is a
// short list to check, not a finding.
func (s Sure) Separated() bool { return s.Top > 0 && 2*s.Chance < float64(s.Top) }

// sureShuffles is the number of shuffles of the null: each costs one
// pass over the nodes; the mean's noise falls as 1/√sureShuffles.
const sureShuffles = 10

// streamSure is the random stream of the null's shuffles.
const streamSure uint64 = 0x73757265 // "sure"

// surePlaces are the tops Score measures among count scored nodes: the
// top 1% (0), and the top 100 when that is neither all of them nor the
// top 1%.
func surePlaces(count int) []int {
	if 100 < count && (count+99)/100 != 100 {
		return []int{0, 100}
	}
	return []int{0}
}

// sureness measures the top of the combined ranking of t, whose scores
// are obs (t.scores()), at top places (0: the top 1%); see surenessAt.
func sureness(g *graph.Graph, t *terms, obs []float64, top int, seed uint64) Sure {
	return surenessAt(g, t, obs, []int{top}, seed)[0]
}

// surenessAt measures the top of the combined ranking of t, whose scores
// are obs (t.scores()), (see Sure) at each number of places of tops (0:
// the top 1%, count/100 rounded up; at most all), with shuffles drawn
// from seed: one stream per shuffle, in order, so the result does not
// depend on any worker count. Zero Sures when no entry is scored.
func surenessAt(g *graph.Graph, t *terms, obs []float64, tops []int, seed uint64) []Sure {
	var bins [65][]int32
	count := 0
	for k, ok := range t.ok {
		if ok {
			b := degreeBin(g.Degree(k))
			bins[b] = append(bins[b], int32(k))
			count++
		}
	}
	out := make([]Sure, len(tops))
	if count == 0 {
		return out
	}
	x := make([]float64, 0, count)
	for _, v := range obs {
		if !math.IsNaN(v) {
			x = append(x, v)
		}
	}
	slices.Sort(x)
	cuts := make([]float64, len(tops))
	for c, top := range tops {
		out[c].OnePercent = top <= 0
		if top <= 0 {
			top = (count + 99) / 100
		}
		out[c].Top = min(top, count)
		cuts[c] = x[count-out[c].Top] // the Top-th highest score
	}
	perm := make([]int32, 0, count)
	hits := make([]int, len(tops))
	for s := range sureShuffles {
		r := rng.SplitMix{S: rng.StreamSeed(seed, streamSure, uint64(s), 0)}
		for _, idx := range bins {
			perm = append(perm[:0], idx...)
			for i := len(perm) - 1; i > 0; i-- { // Fisher–Yates
				j := r.Intn(uint32(i + 1))
				perm[i], perm[j] = perm[j], perm[i]
			}
			for q, k := range idx {
				v := t.combined(int(k), int(perm[q]))
				for c, cut := range cuts {
					if v >= cut {
						hits[c]++
					}
				}
			}
		}
	}
	for c := range out {
		out[c].Chance = float64(hits[c]) / sureShuffles
	}
	return out
}
