package evidence

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// fitPrint hashes what Fit learns: the weights, the scales, the IDF and
// every bin pair's null samples, bit for bit.
func fitPrint(m *Model) uint64 {
	h := fnv.New64a()
	put := func(v float64) { fmt.Fprintf(h, "%x,", math.Float64bits(v)) }
	for _, v := range m.weights {
		put(v)
	}
	for _, v := range m.scale {
		put(v)
	}
	put(m.alpha)
	keys := make([]key, 0, len(m.idf))
	for k := range m.idf {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, keyCmp)
	for _, k := range keys {
		fmt.Fprintf(h, "%d:%d=", k.block, k.id)
		put(m.idf[k])
	}
	for a := range nBins {
		for b := range nBins {
			fmt.Fprintf(h, "|%d", len(m.null[a][b]))
			for _, v := range m.null[a][b] {
				put(v)
			}
		}
	}
	return h.Sum64()
}

// TestFitAsBefore pins the model Fit learns on a world with pieces of many
// sizes, and targets without pieces, to what the code of 986211e learnt
// (before the pieces' lists were sized up front): the same samples drawn
// in the same order. The members' token cache is checked against
// memberTokens.
func TestFitAsBefore(t *testing.T) {
	var w world
	r := rng.SplitMix{S: 99}
	hub := w.node(kKeyword)
	venues := make([]int, 12)
	for k := range venues {
		venues[k] = w.node(kVenue)
	}
	var papers []int
	for k := range 900 {
		papers = append(papers, w.paper(float64(1950+r.Intn(60)), venues[r.Intn(12)], hub))
		w.title[papers[k]] = fmt.Sprintf("on graph %d and entity %d", r.Intn(30), r.Intn(30))
	}
	for range 400 {
		a := w.node(kAuthor)
		var ps [][]int32
		for range r.Intn(5) { // 0 to 4 pieces
			var pc []int32
			for range 1 + r.Intn(1<<r.Intn(7)) {
				p := papers[r.Intn(uint32(len(papers)))]
				w.link(a, p)
				pc = append(pc, int32(p))
			}
			ps = append(ps, pc)
		}
		w.owners = append(w.owners, a)
		w.pieces = append(w.pieces, ps)
	}
	g, c := w.build(t)
	m, err := Fit(context.Background(), g, c, w.structural(), w.owners, w.pieces, Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fitPrint(m), uint64(0x64450000e27f4b1); got != want {
		t.Fatalf("model print %#x, want %#x", got, want)
	}
	// The members' cached tokens are those memberTokens computes.
	fresh := *m
	fresh.cache = make([]*memberToks, len(m.cache))
	cached := 0
	for u, c := range m.cache {
		if c == nil {
			continue
		}
		cached++
		f := fresh.memberTokens(int32(u))
		if !slices.Equal(c.keys, f.keys) || !slices.Equal(c.w, f.w) || cap(c.keys) != len(c.keys) || cap(c.w) != len(c.w) {
			t.Fatalf("member %d: cached tokens %v %v, want %v %v (capped)", u, c.keys, c.w, f.keys, f.w)
		}
	}
	if cached < 100 {
		t.Fatalf("%d members cached", cached)
	}
}
