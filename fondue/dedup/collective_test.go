package dedup

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// softCo counts a co-author of one only whose likely duplicate is a
// co-author of the other only, by its probability, the smaller direction.
func TestSoftCo(t *testing.T) {
	e := &engine{partners: make([][]partner, 6)}
	link := func(a, b int32, p float64) { // by the probability p
		s := math.Log(p / (1 - p))
		e.partners[a] = append(e.partners[a], partner{b, s})
		e.partners[b] = append(e.partners[b], partner{a, s})
	}
	link(1, 3, .9)
	link(1, 4, .6)
	link(5, 2, .8) // 2 is a co-author of both: not counted again
	p := &profile{co: []int32{1, 2, 5}}
	q := &profile{co: []int32{2, 3, 4}}
	// p to q: 1 -> 3 (.9); q to p: 3 -> 1 (.9), 4 -> 1 (.6): the smaller
	if s, n := e.softCo(p, q); math.Abs(s-.9) > 1e-12 || n != 1 {
		t.Errorf("softCo(p, q) = %v, %d; want .9, 1", s, n)
	}
	if s, n := e.softCo(q, p); math.Abs(s-.9) > 1e-12 || n != 1 {
		t.Errorf("softCo(q, p) = %v, %d; want .9, 1", s, n)
	}
	// a co-author with more partners than the other has co-authors (its
	// list is searched, not walked): the same best
	e2 := &engine{partners: make([][]partner, 12)}
	for y, pr := range map[int32]float64{7: .7, 8: .95, 9: .6, 10: .5} {
		s := math.Log(pr / (1 - pr))
		e2.partners[6] = append(e2.partners[6], partner{y, s})
		e2.partners[y] = append(e2.partners[y], partner{6, s})
	}
	slices.SortFunc(e2.partners[6], func(a, b partner) int { return int(a.y - b.y) })
	p2, q2 := &profile{co: []int32{6}}, &profile{co: []int32{8, 11}}
	if s, n := e2.softCo(p2, q2); math.Abs(s-.95) > 1e-12 || n != 1 {
		t.Errorf("many partners: softCo = %v, %d; want .95, 1", s, n)
	}
	// without partners (before rescore) nothing is resolved
	e.partners = nil
	if s, n := e.softCo(p, q); s != 0 || n != 0 {
		t.Errorf("no partners: softCo = %v, %d; want 0, 0", s, n)
	}
}

// transitive raises a pair to 1 - (1-p)(1-t), t the best chain's product
// of probabilities, and leaves the pairs without a chain as they were.
func TestTransitive(t *testing.T) {
	// nodes 0, 1, 2 compared, 3 a paper (the graph is only counted)
	g, err := graph.NewGraph(4, [][2]int{{0, 3}, {1, 3}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(Input{Graph: g, Names: make([]string, 4), Targets: []int{0, 1, 2}}, Options{}.withDefaults())
	e.partners = [][]partner{} // as rescore leaves it: resolved
	code := func(a, b int32) uint64 { return uint64(a)<<32 | uint64(b) }
	cands := []uint64{code(0, 1), code(0, 2), code(1, 2)}
	// p(0,1) = .9, p(0,2) = .2, p(1,2) = .8
	scores := []float64{math.Log(9), -math.Log(4), math.Log(4)}
	if err := e.transitive(context.Background(), cands, scores); err != nil {
		t.Fatal(err)
	}
	// (0,2) through 1: t = .72, 1 - .8 x .28 = .776
	// (0,1) through 2: t = .2 x .8, but (0,2) is not > 0: no chain; same for (1,2)
	want := []float64{math.Log(9), math.Log(.776 / .224), math.Log(4)}
	for i := range want {
		if math.Abs(scores[i]-want[i]) > 1e-9 {
			t.Errorf("pair %d: score %v, want %v", i, scores[i], want[i])
		}
	}
	ch, ok := e.chains[code(0, 2)]
	if !ok || ch.via != 1 || math.Abs(ch.lift-(want[1]+math.Log(4))) > 1e-9 || len(e.chains) != 1 {
		t.Errorf("chains %v, want only (0,2) through 1", e.chains)
	}
}
