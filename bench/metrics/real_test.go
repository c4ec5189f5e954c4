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
