package cne

import (
	"context"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
)

// TestReuseInitIsTheCopy checks Run.ReuseInit against the copying fit:
// from two equal warm starts, with and without optimizer state, on every
// row or a subset, in exact and sampled mode (renumbered or not), both
// give the same vectors, state and stats bit for bit, and neither
// touches the checkpoint the starts came from.
func TestReuseInitIsTheCopy(t *testing.T) {
	for _, tc := range []struct {
		mode    Mode
		n       int
		reorder int64
	}{{ModeExact, 200, 0}, {ModeSampled, 2000, 0}, {ModeSampled, 2000, -1}} {
		g := testkit.CommunityGraph(tc.n, tc.n/4, 5)
		p := fitTestPrior(t, g)
		o := Options{Mode: tc.mode, MaxEpochs: 40}
		o.tune.reorderMinBytes = tc.reorder
		base, _, err := Fit(context.Background(), g, p, o, Run{Seed: 1, KeepState: true})
		if err != nil {
			t.Fatal(err)
		}
		some := []int32{1, 5, 6, 40, int32(tc.n - 3)}
		for _, withState := range []bool{true, false} {
			ck := NewCheckpoint(g, base, o)
			if !withState {
				ck.M, ck.V = nil, nil
			}
			saved := [][]float64{slices.Clone(ck.X), slices.Clone(ck.M), slices.Clone(ck.V)}
			for _, rows := range [][]int32{nil, some, {}} {
				fit := func(reuse bool) (*Embedding, Stats) {
					init, _, err := ck.WarmStart(g, o, 3)
					if err != nil {
						t.Fatal(err)
					}
					emb, st, err := Fit(context.Background(), g, p, o, Run{Seed: 2, Init: init, KeepState: true, Trainable: rows, ReuseInit: reuse})
					if err != nil {
						t.Fatal(err)
					}
					st.Duration = 0
					// Unless renumbered (a full sampled fit, here), the
					// reusing fit trains in init's array.
					renumbered := tc.reorder < 0 && rows == nil
					if shared := &emb.X[0] == &init.X[0]; shared != (reuse && !renumbered) {
						t.Fatalf("%v (reuse %v): result shares init's vectors: %v", tc.mode, reuse, shared)
					}
					return emb, st
				}
				a, sa := fit(false)
				b, sb := fit(true)
				if sa != sb || !slices.Equal(a.X, b.X) || (a.state == nil) != (b.state == nil) {
					t.Fatalf("%v (state %v, rows %v): the reusing fit differs: %+v, %+v", tc.mode, withState, rows, sa, sb)
				}
				if s, r := a.state, b.state; s != nil && (!slices.Equal(s.m, r.m) || !slices.Equal(s.v, r.v) || s.step != r.step ||
					!slices.Equal(s.history, r.history) || s.peak != r.peak) {
					t.Fatalf("%v (state %v, rows %v): the reusing fit's optimizer state differs", tc.mode, withState, rows)
				}
				if !slices.Equal(ck.X, saved[0]) || !slices.Equal(ck.M, saved[1]) || !slices.Equal(ck.V, saved[2]) {
					t.Fatalf("%v (state %v, rows %v): the checkpoint changed", tc.mode, withState, rows)
				}
			}
		}
	}
}
