package generate

import (
	"math"
	"slices"
	"testing"
)

// The same options give the same graph, with about the asked average degree.
func TestSBMDeterministic(t *testing.T) {
	o := SBMOptions{Nodes: 5000, AvgDegree: 10, Seed: 3}
	a, err := SBM(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := SBM(o)
	if err != nil {
		t.Fatal(err)
	}
	if a.NumNodes() != 5000 || a.NumEdges() != b.NumEdges() {
		t.Fatalf("nodes %d, edges %d and %d", a.NumNodes(), a.NumEdges(), b.NumEdges())
	}
	for i := range a.NumNodes() {
		if !slices.Equal(a.Neighbors(i), b.Neighbors(i)) {
			t.Fatalf("node %d: neighbours differ", i)
		}
	}
	if avg := 2 * float64(a.NumEdges()) / 5000; math.Abs(avg-10) > 0.5 {
		t.Fatalf("average degree %.2f, want about 10", avg)
	}
}

func TestSBMOptionsErrors(t *testing.T) {
	for _, o := range []SBMOptions{{Nodes: 1, AvgDegree: 1}, {Nodes: 100, AvgDegree: 0}, {Nodes: 100, AvgDegree: 5, Mixing: 2}, {Nodes: 100, AvgDegree: 5, MinCommunity: 50, MaxCommunity: 10}} {
		if _, err := SBM(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := SBM(SBMOptions{Nodes: 100, AvgDegree: 5, Mixing: NoMixing}); err != nil {
		t.Errorf("NoMixing: %v", err)
	}
}
