package syncjob_test

import (
	"math"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// The tolerance is 5% of the top fraction (1 - ambiguity), the larger one.
func TestAmbiguityUnchanged(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		old, new float64
		want     bool
	}{
		{0.5, 0.52, true},     // 0.02 <= 0.05 * 0.5
		{0.5, 0.53, false},    // 0.03 > 0.05 * 0.5
		{0.99, 0.9896, true},  // 0.0004 <= 0.05 * 0.0104
		{0.99, 0.9995, false}, // 0.0095 > 0.05 * 0.01
		{1, 1, true},
		{1, 0.9999, false}, // the very top is exact
		{nan, nan, true},   // no score, none written
		{nan, 0.5, false},  // a score now, none written
		{0.5, nan, false},  // no score now: the written one is removed
	} {
		if got := syncjob.AmbiguityUnchanged(c.old, c.new); got != c.want {
			t.Errorf("AmbiguityUnchanged(%v, %v) = %v, want %v", c.old, c.new, got, c.want)
		}
	}
}
