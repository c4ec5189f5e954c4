package split_test

import (
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split/splittest"
)

func TestSplitters(t *testing.T) {
	for _, sp := range split.Splitters() {
		t.Run(sp.Name(), func(t *testing.T) {
			// The Rayleigh quotient prefers other splits of very unequal cliques.
			splittest.Run(t, sp, splittest.Options{SkipUnequalCliques: sp.Name() == split.FONDUE})
		})
	}
}
