package metrics

import (
	"math"
	"testing"
)

// A ranking of six pairs, four truth pairs in all (one never retrieved):
//
//	score .9 hit, .8 miss, .7 hit, .7 miss (a block), .5 hit, .1 miss.
//
// AP = (1/1 + 1·2/4 + 1·3/5) / 4: the block's hit gets the precision at
// the block's end, 2/4.
func TestAveragePrecision(t *testing.T) {
	scores := []float64{.7, .9, .1, .8, .7, .5, math.NaN()}
	pos := []bool{true, true, false, false, false, true, true}
	if got, want := AveragePrecision(scores, pos, 4), (1+0.5+0.6)/4; !near(got, want) {
		t.Errorf("AP = %v, want %v", got, want)
	}
	// Every pair tied: one block, 3 hits of 6, AP = 3 · (3/6) / 4.
	flat := []float64{1, 1, 1, 1, 1, 1}
	if got, want := AveragePrecision(flat, pos[:6], 4), 3*0.5/4; !near(got, want) {
		t.Errorf("AP of one block = %v, want %v", got, want)
	}
	if got := AveragePrecision(scores, pos, 0); !math.IsNaN(got) {
		t.Errorf("AP without truth = %v, want NaN", got)
	}
}

// Recall at precision: the cuts of the ranking above give (hits/ranked)
// 1/1, 1/2, 2/4, 3/5, 3/6; at precision .5 the best is the cut after 4
// pairs (2 of 4 truth pairs, recall .5) until .6 at 3/5; at .9 only the
// first cut.
func TestRecallAtPrecision(t *testing.T) {
	scores := []float64{.7, .9, .1, .8, .7, .5}
	pos := []bool{true, true, false, false, false, true}
	for _, c := range []struct{ p, want float64 }{{.9, .25}, {.6, .75}, {.5, .75}, {.61, .25}} {
		if got := RecallAtPrecision(scores, pos, 4, c.p); !near(got, c.want) {
			t.Errorf("R@P%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := RecallAtPrecision([]float64{1}, []bool{false}, 4, .9); got != 0 {
		t.Errorf("no cut reaches .9: %v, want 0", got)
	}
}

// Five nodes: persons 0 (nodes 0, 1, 2), 1 (node 3) and node 4 of no
// truth pair; truth pairs: (0,1), (0,2), (1,2). Pairs: (0,1) .9, (1,4)
// .8, (2,3) .7, (0,2) .6.
//
//	after .9: {0,1}: 1 predicted, 1 right; P 1, R 1/3, F1 .5
//	after .8: {0,1,4}: 3 predicted, 1 right; P 1/3, R 1/3, F1 1/3
//	after .7: {0,1,4}, {2,3}: 4 predicted, 1 right; F1 2·(1/4)(1/3)/(7/12) = 2/7
//	after .6: {0,1,2,3,4}: 10 predicted, 3 right; P .3, R 1, F1 .6/1.3
func TestBestClusterF1(t *testing.T) {
	pairs := [][2]int{{2, 3}, {0, 1}, {0, 2}, {1, 4}}
	scores := []float64{.7, .9, .6, .8}
	person := []int{0, 0, 0, 1, -1}
	// The best of .5, 1/3, 2/7 and .6/1.3 is the first cut.
	got := BestClusterF1(pairs, scores, person, 3)
	if !near(got.F1, .5) || got.Threshold != .9 || got.Pairs != 1 || !near(got.Precision, 1) || !near(got.Recall, 1.0/3) {
		t.Errorf("BestClusterF1 = %+v, want F1 .5 at .9 with 1 pair", got)
	}
	// With (0,2) at .85 the cut after it holds person 0 whole: F1 1.
	got = BestClusterF1(append(pairs, [2]int{0, 2}), append(scores, .85), person, 3)
	if !near(got.F1, 1) || got.Threshold != .85 || got.Pairs != 3 {
		t.Errorf("BestClusterF1 with (0,2) at .85 = %+v, want F1 1 at .85 with 3 pairs", got)
	}
	// Ties join as one block: (0,1) and (1,4) both at .9 give only the cut
	// with 3 predicted pairs, 1 right: F1 1/3.
	got = BestClusterF1([][2]int{{0, 1}, {1, 4}}, []float64{.9, .9}, person, 3)
	if !near(got.F1, 1.0/3) || got.Pairs != 3 {
		t.Errorf("tied pairs = %+v, want F1 1/3 with 3 pairs", got)
	}
}
