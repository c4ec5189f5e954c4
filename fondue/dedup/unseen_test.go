package dedup

import (
	"context"
	"slices"
	"testing"
)

// TestFitUnseen plants duplicates whose surname is one letter apart
// ("Anna Berg", "Anna Beerg"): vary never writes such a pair, so the
// name fit weighs it by the negatives and the penalty alone; the graph,
// whose split pieces share co-authors as the planted ones do, says they
// are duplicates, and fitUnseen raises that weight and no other.
func TestFitUnseen(t *testing.T) {
	pl := makePlanted(t, 30, 12, 6, 7)
	near := 0
	for d := range pl.dups {
		first, last, _ := cutSpace(pl.in.Names[d[0]])
		if len(last) >= 4 {
			pl.in.Names[d[1]] = first + " " + last[:2] + last[1:] // Berg -> Beerg
			near++
		}
	}
	if near < 10 {
		t.Fatalf("%d planted pairs one letter apart", near)
	}
	ctx := context.Background()
	e := newEngine(pl.in, Options{Seed: 1}.withDefaults())
	if err := e.prepare(ctx); err != nil {
		t.Fatal(err)
	}
	cands, err := e.candidates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.fit(ctx, cands)
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(e.o.Seed)
	m0 := &model{}
	unseen, err := e.fitNames(m0, e.splitSample(seed), cands, seed)
	if err != nil {
		t.Fatal(err)
	}
	iNear := slices.Index(nameFeatures, "tokens one letter apart")
	if !slices.Contains(unseen, iNear) || !slices.Contains(unseen, slices.Index(nameFeatures, "same letters (spacing differs)")) {
		t.Fatalf("unseen features %v", unseen)
	}
	per := func(l *logit, i int) float64 { return l.w[i] / l.sd[i] }
	if w0, w := per(m0.name, iNear), per(m.name, iNear); w <= w0+1 {
		t.Errorf("one letter apart: %.2f from the negatives, %.2f from the graph; want it raised", w0, w)
	} else {
		t.Logf("one letter apart: %.2f from the negatives, %.2f from the graph", w0, w)
	}
	for i := range nameFeatures {
		if !slices.Contains(unseen, i) && per(m.name, i) != per(m0.name, i) {
			t.Errorf("%s: %g, was %g: a feature positives hold changed", nameFeatures[i], per(m.name, i), per(m0.name, i))
		}
	}
	// the score of a pair holding no unseen feature is unchanged
	x := make([]float64, len(nameFeatures))
	a, b := parseName("Anna Berg"), parseName("A. Berg")
	e.nameVec(&a, &b, x)
	if d := m.name.eta(x) - m0.name.eta(x); d*d > 1e-18 {
		t.Errorf("Anna Berg / A. Berg: name log-odds moved by %g", d)
	}
}
