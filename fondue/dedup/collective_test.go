package dedup

import (
	"math"
	"testing"
)

// softCo counts a co-author of one only whose likely duplicate is a
// co-author of the other only, by its probability, the smaller direction.
func TestSoftCo(t *testing.T) {
	e := &engine{partners: make([][]partner, 6)}
	link := func(a, b int32, p float64) {
		e.partners[a] = append(e.partners[a], partner{b, p})
		e.partners[b] = append(e.partners[b], partner{a, p})
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
	// without partners (before rescore) nothing is resolved
	e.partners = nil
	if s, n := e.softCo(p, q); s != 0 || n != 0 {
		t.Errorf("no partners: softCo = %v, %d; want 0, 0", s, n)
	}
}
