package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// refBuildCSR is buildCSR as of 6c9321f (serial row sorts).
func refBuildCSR(n int, src, dst []int32) *Graph {
	deg := make([]int64, n+1)
	for k := range src {
		deg[src[k]+1]++
		deg[dst[k]+1]++
	}
	for i := 0; i < n; i++ {
		deg[i+1] += deg[i]
	}
	off := deg
	adj := make([]int32, off[n])
	pos := make([]int64, n)
	copy(pos, off[:n])
	for k := range src {
		u, v := src[k], dst[k]
		adj[pos[u]] = v
		pos[u]++
		adj[pos[v]] = u
		pos[v]++
	}
	// Sort each row and squeeze out duplicates in place.
	w := int64(0)
	start := int64(0)
	dups := 0
	for i := 0; i < n; i++ {
		row := adj[start:off[i+1]]
		slices.Sort(row)
		newStart := w
		for k, v := range row {
			if k > 0 && v == row[k-1] {
				dups++
				continue
			}
			adj[w] = v
			w++
		}
		start = off[i+1]
		off[i] = newStart
	}
	off[n] = w
	adj = slices.Clip(adj[:w])
	if int64(len(adj)) < int64(cap(adj))/2 {
		adj = slices.Clone(adj)
	}
	return &Graph{off: off, adj: adj, duplicates: dups / 2}
}

// TestBuildCSRMatchesReference checks the parallel row sort and
// deduplication against the serial code of 6c9321f, on graphs large enough
// for many chunks, with duplicates in both orientations and hubs.
func TestBuildCSRMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1001, 6))
	for _, n := range []int{0, 1, 2, 50, 3000, 200_000} {
		for _, m := range []int{0, n / 2, 3 * n} {
			src, dst := make([]int32, 0, m), make([]int32, 0, m)
			for range m {
				u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
				if rng.IntN(20) == 0 {
					u = 0 // a hub
				}
				if u == v {
					continue
				}
				src, dst = append(src, u), append(dst, v)
				if rng.IntN(5) == 0 {
					src, dst = append(src, v), append(dst, u)
				}
			}
			want := refBuildCSR(n, slices.Clone(src), slices.Clone(dst))
			got := buildCSR(n, src, dst)
			if !slices.Equal(got.off, want.off) || !slices.Equal(got.adj, want.adj) || got.duplicates != want.duplicates {
				t.Fatalf("n %d m %d: graphs differ (dups %d vs %d)", n, m, got.duplicates, want.duplicates)
			}
		}
	}
}
