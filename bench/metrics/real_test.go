package metrics

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestDegreeBin(t *testing.T) {
	for deg, want := range map[int]int{0: -1, 1: 0, 2: 1, 3: 1, 4: 2, 7: 2, 8: 3, 1023: 9, 1024: 10} {
		if got := degreeBin(deg); got != want {
			t.Errorf("degreeBin(%d) = %d, want %d", deg, got, want)
		}
	}
}

// AUC within degree bins pools the positive–negative pairs of each bin
// floor(log2(degree)) and ignores pairs across bins.
func TestAUCWithinBins(t *testing.T) {
	scores := []float64{0.9, 0.5, 0.2, 0.3, 0.2, 0.7, math.NaN(), 0.1}
	pos := []bool{true, false, true, false, false, true, false, false}
	deg := []int{1, 1, 2, 3, 3, 4, 5, 40}
	// Bin 0 (degree 1): 0.9 beats 0.5, 1 of 1 pair. Bin 1 (2, 3): 0.2
	// loses to 0.3 and ties 0.2, half a win of 2 pairs. Bin 2 (4; the NaN
	// is left out): no negative. Bin 5 (40): no positive. The pairs across
	// bins (0.7 against 0.5, 0.3, 0.2, 0.1, ...) do not count.
	if got, want := AUCWithinBins(scores, pos, deg), 1.5/3; !near(got, want) {
		t.Errorf("AUCWithinBins = %v, want %v", got, want)
	}
	if got := AUCWithinBins([]float64{1, 0}, []bool{true, false}, []int{1, 2}); !math.IsNaN(got) {
		t.Errorf("no bin with both: %v, want NaN", got)
	}
}

// Precision at k breaks the tie at the cut by expectation.
func TestPrecisionAt(t *testing.T) {
	scores := []float64{4, 5, 4, 3, 4, math.NaN()}
	pos := []bool{true, true, false, false, true, true}
	// Ranked: 5 (positive), then a block of three 4s with two positives,
	// then 3. At k = 3 the block takes two places worth 2/3 each.
	if got, want := PrecisionAt(scores, pos, 3), (1+2*2.0/3)/3; !near(got, want) {
		t.Errorf("P@3 = %v, want %v", got, want)
	}
	if got, want := PrecisionAt(scores, pos, 1), 1.0; !near(got, want) {
		t.Errorf("P@1 = %v, want %v", got, want)
	}
	// k beyond the five scored names: P@5, the NaN left out.
	if got, want := PrecisionAt(scores, pos, 100), 3.0/5; !near(got, want) {
		t.Errorf("P@100 of 5 names = %v, want %v", got, want)
	}
}

func TestCountErrors(t *testing.T) {
	exact, mae := CountErrors([]int{2, 3, 5, 1}, []int{2, 4, 2, 1})
	if !near(exact, 0.5) || !near(mae, 1) {
		t.Errorf("CountErrors = %v, %v; want 0.5, 1", exact, mae)
	}
	if e, m := CountErrors(nil, nil); !math.IsNaN(e) || !math.IsNaN(m) {
		t.Errorf("no pair: %v, %v", e, m)
	}
}

// TopOf on 250 ranked nodes (one NaN left out): 1% is 3 places.
func TestTopOf(t *testing.T) {
	n := 251
	scores := make([]float64, n)
	pos := make([]bool, n)
	deg := make([]int, n)
	for i := range scores {
		scores[i] = float64(n - i) // node 0 highest
		deg[i] = 2
	}
	scores[250] = math.NaN()
	// Nodes 0 and 1: hubs of degree 100, not positive. Nodes 2..11:
	// positives of degree 4. Nodes 12, 13 tie with node 2's score.
	deg[0], deg[1] = 100, 100
	for i := 2; i < 12; i++ {
		pos[i], deg[i] = true, 4
	}
	scores[12], scores[13] = scores[2], scores[2]
	pos[250], deg[250] = true, 1000 // not ranked: counts nowhere
	top := TopOf(scores, pos, deg)
	if top.Ranked != 250 || !near(top.Random, 10.0/250) || !near(top.PosDeg, 4) {
		t.Errorf("ranked %d, random %v, positives' degree %v; want 250, 0.04, 4", top.Ranked, top.Random, top.PosDeg)
	}
	// Top 3: nodes 0, 1 and one place of the block {2, 12, 13} (1/3
	// positive, mean degree (4+2+2)/3).
	if want := (1.0 / 3) / 3; !near(top.P1, want) {
		t.Errorf("P@1%% = %v, want %v", top.P1, want)
	}
	if want := (200 + 8.0/3) / 3; !near(top.Deg1, want) {
		t.Errorf("mean degree of the top 1%% = %v, want %v", top.Deg1, want)
	}
	// Top 20: 0, 1, the block of 3 (1 positive), 3..11 (9 positives), then
	// 14..19 (6 others): 10 positives.
	if want := 10.0 / 20; !near(top.P20, want) {
		t.Errorf("P@20 = %v, want %v", top.P20, want)
	}
	if want := 10.0 / 100; !near(top.P100, want) {
		t.Errorf("P@100 = %v, want %v", top.P100, want)
	}
	// Top 100: 2 hubs, 10 positives, 88 others.
	if want := (200 + 40 + 88*2.0) / 100; !near(top.Deg100, want) {
		t.Errorf("mean degree of the top 100 = %v, want %v", top.Deg100, want)
	}
	if !top.Hubs() { // 68 > 2*4
		t.Error("a top 1% of hubs is not named")
	}
	deg[0], deg[1] = 4, 4
	if top := TopOf(scores, pos, deg); top.Hubs() {
		t.Errorf("no hubs named hubs: %+v", top)
	}
}
