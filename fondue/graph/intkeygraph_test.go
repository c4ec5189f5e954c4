package graph

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNewIntKeyGraphMatchesBuilder checks NewIntKeyGraph against a Builder
// fed the same edges, on dense ranges (the table path), sparse ones (the
// Builder path), negative keys, the int64 extremes, self-loops, duplicates.
func TestNewIntKeyGraphMatchesBuilder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1001, 3))
	for trial := 0; trial < 300; trial++ {
		edges := 1 + rng.IntN(400)
		lo := int64(rng.IntN(2000)) - 1000
		span := int64(1 + rng.IntN(3*edges))
		if trial%10 == 0 {
			span = 1 << 40 // sparse
		}
		key := func() int64 { return lo + rng.Int64N(span) }
		pairs := make([]int64, 0, 2*edges)
		for e := 0; e < edges; e++ {
			u, v := key(), key()
			switch rng.IntN(10) {
			case 0:
				v = u // self-loop
			case 1:
				if len(pairs) > 0 { // duplicate, either way round
					k := 2 * rng.IntN(len(pairs)/2)
					u, v = pairs[k+1], pairs[k]
				}
			}
			pairs = append(pairs, u, v)
		}
		if trial%50 == 7 {
			pairs = append(pairs, math.MinInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64)
		}
		var b Builder
		for k := 0; k < len(pairs); k += 2 {
			b.AddIntEdge(pairs[k], pairs[k+1])
		}
		want := b.Build()
		var blocks [][]int64 // cut at random even places, empty blocks included
		for rest := pairs; len(rest) > 0; {
			c := min(len(rest), 2*rng.IntN(40))
			blocks = append(blocks, rest[:c])
			rest = rest[c:]
		}
		got := NewIntKeyGraph(blocks)
		if !slices.Equal(got.off, want.off) || !slices.Equal(got.adj, want.adj) || !slices.Equal(got.intKeys, want.intKeys) ||
			got.strKeys != nil || got.selfLoops != want.selfLoops || got.duplicates != want.duplicates {
			t.Fatalf("trial %d: graphs differ (%d vs %d nodes, loops %d vs %d, dups %d vs %d)", trial,
				got.NumNodes(), want.NumNodes(), got.selfLoops, want.selfLoops, got.duplicates, want.duplicates)
		}
		for i := 0; i < got.NumNodes(); i++ {
			if j, ok := got.Index(got.Key(i)); !ok || j != i {
				t.Fatalf("trial %d: Index(Key(%d)) = %d, %v", trial, i, j, ok)
			}
		}
	}
}
