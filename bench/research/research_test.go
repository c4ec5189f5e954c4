package research

import (
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split/splittest"
)

// The research splitters have the documented names, none of them one of
// fondue's, so that the bench can offer both sets side by side.
func TestSplitterNames(t *testing.T) {
	want := []string{Spectral, Posterior, Hybrid, MCL2, KMeans, EgoComponents, TwoHopComponents}
	got := Splitters()
	if len(got) != len(want) {
		t.Fatalf("%d splitters, want %d", len(got), len(want))
	}
	for k, s := range got {
		if s.Name() != want[k] || !IsSplitter(want[k]) {
			t.Errorf("splitter %d is %q, want %q", k, s.Name(), want[k])
		}
		if split.Find(split.Splitters(), s.Name()) != nil {
			t.Errorf("%q is also one of fondue's splitters", s.Name())
		}
		needs := s.Name() != Spectral && s.Name() != EgoComponents && s.Name() != TwoHopComponents
		if s.NeedsEmbedding() != needs {
			t.Errorf("%q: NeedsEmbedding %v", s.Name(), s.NeedsEmbedding())
		}
	}
	if IsSplitter(split.NCut) {
		t.Error("IsSplitter(ncut)")
	}
}

func TestConformance(t *testing.T) {
	for _, sp := range Splitters() {
		t.Run(sp.Name(), func(t *testing.T) {
			// Normalized cut on posteriors alone prefers other splits of
			// very unequal cliques.
			splittest.Run(t, sp, splittest.Options{SkipUnequalCliques: sp.Name() == Posterior})
		})
	}
}
