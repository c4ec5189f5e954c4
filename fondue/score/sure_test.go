package score

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// Share and Separated read Chance against Top as documented.
func TestSureShareByHand(t *testing.T) {
	for _, c := range []struct {
		s     Sure
		share float64
		sep   bool
	}{
		{Sure{Top: 10, Chance: 4}, 0.6, true},
		{Sure{Top: 10, Chance: 5}, 0.5, false}, // half by chance: not most
		{Sure{Top: 10, Chance: 12}, 0, false},  // more than the top: 0, not negative
		{Sure{Top: 3, Chance: 0}, 1, true},
		{Sure{}, 0, false},
	} {
		if got := c.s.Share(); math.Abs(got-c.share) > 1e-12 {
			t.Errorf("%+v: share %v, want %v", c.s, got, c.share)
		}
		if got := c.s.Separated(); got != c.sep {
			t.Errorf("%+v: separated %v, want %v", c.s, got, c.sep)
		}
	}
}

// cycle is a ring of n nodes: every degree 2, one degree bin.
func cycle(t *testing.T, n int) *graph.Graph {
	t.Helper()
	var e [][2]int
	for i := range n {
		e = append(e, [2]int{i, (i + 1) % n})
	}
	g, err := graph.NewGraph(n, e)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Where shuffling the evidence changes no score, chance fills the whole
// top: the evidence ties, it weighs nothing, or every node is alone in
// its degree bin.
func TestSurenessNoSecondSignal(t *testing.T) {
	g := cycle(t, 250) // 1% of 250 is 3 places
	zf := make([]float64, 250)
	for k := range zf {
		zf[k] = float64(k)
	}
	ok := make([]bool, 250)
	for k := range ok {
		ok[k] = true
	}
	flat := &terms{zf: zf, ze: make([]float64, 250), zd: make([]float64, 250), ok: ok, wEv: 1}
	if got := sureness(g, flat, flat.scores(), 0, 7); got != (Sure{Top: 3, Chance: 3, OnePercent: true}) {
		t.Errorf("tied evidence: %+v, want top 3, chance 3", got)
	}
	ze := slices.Clone(zf)
	slices.Reverse(ze)
	unweighted := &terms{zf: zf, ze: ze, zd: make([]float64, 250), ok: ok}
	if got := sureness(g, unweighted, unweighted.scores(), 5, 7); got != (Sure{Top: 5, Chance: 5}) {
		t.Errorf("evidence weighted 0: %+v, want top 5, chance 5", got)
	}
	// The path 0-1-2 and node 3 with 4 leaves: degrees 1, 2, 1, 4, 1, 1,
	// 1, 1. Bins 0 (the six nodes of degree 1), 1 (node 1), 2 (node 3);
	// only nodes 1 (score 0) and 3 (-0.5) scored, each alone in its bin.
	star, err := graph.NewGraph(8, [][2]int{{0, 1}, {1, 2}, {3, 4}, {3, 5}, {3, 6}, {3, 7}})
	if err != nil {
		t.Fatal(err)
	}
	alone := &terms{zf: make([]float64, 8), ze: make([]float64, 8), zd: make([]float64, 8), ok: make([]bool, 8), wEv: 1}
	alone.ok[1], alone.ok[3] = true, true
	alone.zf[1], alone.ze[1] = 1, -1
	alone.zf[3], alone.ze[3] = -2, 1
	if got := sureness(star, alone, alone.scores(), 0, 7); got != (Sure{Top: 1, Chance: 1, OnePercent: true}) {
		t.Errorf("one node a bin: %+v, want top 1, chance 1", got)
	}
	if got := sureness(star, &terms{ok: make([]bool, 8)}, nil, 0, 7); got != (Sure{}) {
		t.Errorf("nothing scored: %+v, want zero", got)
	}
}

// sureness agrees with a direct reading of its definition: the same
// shuffles (Fisher–Yates on the same streams, bin by bin in bin order),
// the null scores written out and counted against the top-th score.
func TestSurenessMatchesDefinition(t *testing.T) {
	// A path of 300 nodes and a triangle fan: degrees 1, 2 and more, so
	// several bins.
	var e [][2]int
	for i := range 299 {
		e = append(e, [2]int{i, i + 1})
	}
	for i := 2; i < 60; i += 3 {
		e = append(e, [2]int{0, i}) // node 0 becomes a hub
		e = append(e, [2]int{i, i + 2})
	}
	g, err := graph.NewGraph(300, e)
	if err != nil {
		t.Fatal(err)
	}
	n := g.NumNodes()
	r := rng.SplitMix{S: 99}
	tm := &terms{zf: make([]float64, n), ze: make([]float64, n), zd: make([]float64, n), ok: make([]bool, n), wEv: 0.8, dw: 0.25}
	for k := range n {
		tm.ok[k] = k%17 != 5
		tm.zf[k], tm.ze[k], tm.zd[k] = r.Norm(), r.Norm(), 0.25*r.Norm()
		if k%3 == 0 { // agreement on a third of the nodes
			tm.ze[k] = tm.zf[k] + 0.3*r.Norm()
		}
	}
	for _, top := range []int{0, 1, 20} {
		got := sureness(g, tm, tm.scores(), top, 11)
		// The definition, written out.
		var obs []float64
		for k := range n {
			if tm.ok[k] {
				obs = append(obs, (tm.zf[k]+tm.wEv*tm.ze[k]+tm.zd[k])/(1+tm.wEv+tm.dw))
			}
		}
		places := top
		if places == 0 {
			places = (len(obs) + 99) / 100
		}
		slices.Sort(obs)
		cut := obs[len(obs)-places]
		hits := 0
		for s := range sureShuffles {
			rs := rng.SplitMix{S: rng.StreamSeed(11, streamSure, uint64(s), 0)}
			for b := range 65 {
				var idx []int
				for k := range n {
					if tm.ok[k] && degreeBin(g.Degree(k)) == b {
						idx = append(idx, k)
					}
				}
				perm := slices.Clone(idx)
				for i := len(perm) - 1; i > 0; i-- {
					j := rs.Intn(uint32(i + 1))
					perm[i], perm[j] = perm[j], perm[i]
				}
				for q, k := range idx {
					if (tm.zf[k]+tm.wEv*tm.ze[perm[q]]+tm.zd[k])/(1+tm.wEv+tm.dw) >= cut {
						hits++
					}
				}
			}
		}
		want := Sure{Top: places, Chance: float64(hits) / sureShuffles, OnePercent: top == 0}
		if got != want {
			t.Errorf("top %d: %+v, want %+v", top, got, want)
		}
		if top == 20 && got.Chance >= 20 {
			t.Errorf("top 20 of signals agreeing on a third: chance %v, want below 20", got.Chance)
		}
	}
}

// With signals unrelated to each other, chance fills the top: the null
// has the observed scores' distribution, so Chance is Top up to the
// noise of the top's cut (about √Top) and of ten shuffles; signals that
// agree on a few nodes leave chance short of them.
func TestSurenessCalibrated(t *testing.T) {
	const n = 20000 // the top 1%: 200 places
	g := cycle(t, n)
	r := rng.SplitMix{S: 3}
	tm := &terms{zf: make([]float64, n), ze: make([]float64, n), zd: make([]float64, n), ok: make([]bool, n), wEv: 1}
	for k := range n {
		tm.ok[k] = true
		tm.zf[k], tm.ze[k] = r.Norm(), r.Norm()
	}
	s := sureness(g, tm, tm.scores(), 0, 1)
	if s.Top != 200 || !s.OnePercent || math.Abs(s.Chance-200) > 60 {
		t.Errorf("unrelated signals: %+v, want top 200 and chance 200 ± 60", s)
	}
	// 100 nodes on which both signals are 4 standard deviations out.
	for k := 0; k < n; k += n / 100 {
		tm.zf[k], tm.ze[k] = 4, 4
	}
	s = sureness(g, tm, tm.scores(), 100, 1)
	if !s.Separated() || s.Chance > 10 {
		t.Errorf("100 agreed nodes: %+v, want chance under 10 of the top 100", s)
	}
	t.Logf("agreed: %+v", s)
}

// The tops measured: the top 1%, and the top 100 where it is neither
// all the nodes nor the top 1%; surenessAt measures each as sureness does.
func TestSurePlaces(t *testing.T) {
	for count, want := range map[int][]int{1: {0}, 100: {0}, 101: {0, 100}, 9901: {0}, 10000: {0}, 10001: {0, 100}} {
		if got := surePlaces(count); !slices.Equal(got, want) {
			t.Errorf("%d nodes: %v, want %v", count, got, want)
		}
	}
	g := cycle(t, 500)
	r := rng.SplitMix{S: 8}
	tm := &terms{zf: make([]float64, 500), ze: make([]float64, 500), zd: make([]float64, 500), ok: make([]bool, 500), wEv: 1}
	for k := range 500 {
		tm.ok[k] = true
		tm.zf[k], tm.ze[k] = r.Norm(), r.Norm()
	}
	obs := tm.scores()
	got := surenessAt(g, tm, obs, []int{0, 100}, 4)
	want := []Sure{sureness(g, tm, obs, 0, 4), sureness(g, tm, obs, 100, 4)}
	if !slices.Equal(got, want) || got[0].Top != 5 || !got[0].OnePercent || got[1].Top != 100 || got[1].OnePercent {
		t.Errorf("%+v, want %+v (top 5 and top 100)", got, want)
	}
}

// BenchmarkSureness measures the summary's "how sure" on 1M and 10M
// nodes of mixed degrees (a ring with a random chord or two per node)
// and signals drawn independently: the cost it adds to a run.
//
//	go test -run '^$' -bench Sureness -benchtime 3x ./fondue/score/
func BenchmarkSureness(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := rng.SplitMix{S: 5}
			var e [][2]int
			for i := range n {
				e = append(e, [2]int{i, (i + 1) % n})
				for range r.Intn(3) {
					if j := int(r.Intn(uint32(n))); j != i {
						e = append(e, [2]int{i, j})
					}
				}
			}
			g, err := graph.NewGraph(n, e)
			if err != nil {
				b.Fatal(err)
			}
			e = nil
			tm := &terms{zf: make([]float64, n), ze: make([]float64, n), zd: make([]float64, n), ok: make([]bool, n), wEv: 1}
			for k := range n {
				tm.ok[k] = true
				tm.zf[k], tm.ze[k] = r.Norm(), r.Norm()
			}
			obs := tm.scores()
			b.ResetTimer()
			for range b.N {
				surenessAt(g, tm, obs, surePlaces(n), 1)
			}
		})
	}
}
