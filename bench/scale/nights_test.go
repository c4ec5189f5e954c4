package scale

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compareTop against hand-computed answers: the top 1 of four keys, and
// Spearman's rho of a reversed and an equal ranking.
func TestCompareTop(t *testing.T) {
	a := map[string]float64{"w": 0.1, "x": 0.2, "y": 0.3, "z": 0.4}
	same := map[string]float64{"w": 1, "x": 2, "y": 3, "z": 4}
	rev := map[string]float64{"w": 4, "x": 3, "y": 2, "z": 1}
	if o, r := compareTop(a, same, 0.25); o != 1 || math.Abs(r-1) > 1e-12 {
		t.Errorf("same order: overlap %v, rho %v", o, r)
	}
	if o, r := compareTop(a, rev, 0.25); o != 0 || math.Abs(r+1) > 1e-12 {
		t.Errorf("reversed: overlap %v, rho %v", o, r)
	}
	// Top half {y, z} against {x, z}: one of two; ranks 1 2 3 4 against
	// 1 3 2 4: rho = 1 - 6*2/(4*15) = 0.8.
	if o, r := compareTop(a, map[string]float64{"w": 1, "x": 3, "y": 2, "z": 4}, 0.5); o != 0.5 || math.Abs(r-0.8) > 1e-12 {
		t.Errorf("one swap: overlap %v, rho %v", o, r)
	}
}

// A report of nights alone (no score or live runs) writes its table.
func TestReportNights(t *testing.T) {
	dir := t.TempDir()
	res := &Results{Nights: []NightRun{{Case: "c", Server: "5.26", Night: "first", Mode: "full", WallS: 10, ComputeS: 8, WallShare: 1, ComputeShare: 1},
		{Case: "c", Server: "5.26", Night: "1%", Changed: 10, Mode: "incremental", WallS: 2, ComputeS: 1, WallShare: 0.2, ComputeShare: 0.125,
			Compared: true, Top1Overlap: 0.96, Spearman: 0.99}}}
	if err := Report(dir, res, "# test", nil); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil || !strings.Contains(string(js), `"top1_overlap": 0.96`) {
		t.Errorf("results.json (%v) holds no nights:\n%s", err, js)
	}
	if !strings.Contains(string(md), "| c | 5.26 | 1% | 10 | incremental | 2.0 | 1.0 | 0.0 | 20% | 12% | 0 | 0 | 0 | 0 | 0.9600 | 0.9900 |") ||
		!strings.Contains(string(md), "| first | 0 | full |") {
		t.Errorf("results.md:\n%s", md)
	}
}
