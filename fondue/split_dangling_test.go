package fondue

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// danglingBrute marks the groups whose connected component of g without
// center (by transitive closure of the adjacency, Floyd–Warshall style)
// holds no neighbour of center outside the group.
func danglingBrute(g *Graph, center int, groups [][]int32) []bool {
	n := g.NumNodes()
	reach := make([][]bool, n)
	for x := range reach {
		reach[x] = make([]bool, n)
		reach[x][x] = true
		if x == center {
			continue
		}
		for _, y := range g.Neighbors(x) {
			if int(y) != center {
				reach[x][y] = true
			}
		}
	}
	for k := 0; k < n; k++ {
		if k == center {
			continue
		}
		for x := 0; x < n; x++ {
			if !reach[x][k] {
				continue
			}
			for y := 0; y < n; y++ {
				if reach[k][y] {
					reach[x][y] = true
				}
			}
		}
	}
	out := make([]bool, len(groups))
	for gi, grp := range groups {
		out[gi] = true
		for hi, other := range groups {
			if hi == gi {
				continue
			}
			for _, a := range grp {
				for _, b := range other {
					if reach[a][b] {
						out[gi] = false
					}
				}
			}
		}
	}
	return out
}

// mergeBrute applies the rule of mergeDangling with danglingBrute.
func mergeBrute(g *Graph, center int, groups [][]int32) [][]int32 {
	d := danglingBrute(g, center, groups)
	count := 0
	for _, x := range d {
		if x {
			count++
		}
	}
	if count < 2 || count == len(groups) {
		return groups
	}
	var merged []int32
	var out [][]int32
	placed := false
	for gi, grp := range groups {
		if !d[gi] {
			out = append(out, grp)
			continue
		}
		merged = append(merged, grp...)
		if !placed {
			out = append(out, nil)
			placed = true
		}
	}
	for k := range out {
		if out[k] == nil {
			out[k] = merged
		}
	}
	return out
}

// TestMergeDanglingBrute checks mergeDangling against transitive closure
// on random sparse graphs (many small components once the centre is
// removed) and random partitions of the centre's neighbours.
func TestMergeDanglingBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	var w ncutWork
	merges := 0
	for trial := 0; trial < 400; trial++ {
		n := 6 + r.IntN(14)
		var edges [][2]int
		for x := 1; x < n; x++ {
			if r.IntN(2) == 0 {
				edges = append(edges, [2]int{0, x})
			}
		}
		for k := r.IntN(n + 2); k > 0; k-- {
			a, b := 1+r.IntN(n-1), 1+r.IntN(n-1)
			if a != b {
				edges = append(edges, [2]int{a, b})
			}
		}
		g := NewGraph(n, edges)
		nb := g.Neighbors(0)
		if len(nb) < 2 {
			continue
		}
		k := 1 + r.IntN(len(nb))
		groups := make([][]int32, k)
		for i, j := range nb {
			c := r.IntN(k)
			if i < k {
				c = i // no empty group
			}
			groups[c] = append(groups[c], j)
		}
		want := mergeBrute(g, 0, groups)
		got := w.mergeDangling(g, 0, slices.Clone(groups))
		if len(want) < len(groups) {
			merges++
		}
		if len(got) != len(want) {
			t.Fatalf("trial %d: groups %v: got %v, want %v", trial, groups, got, want)
		}
		for i := range got {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("trial %d: groups %v: got %v, want %v", trial, groups, got, want)
			}
		}
	}
	if merges < 20 {
		t.Fatalf("only %d trials merged: the test does not exercise the merge", merges)
	}
}

// TestNCutMergesDanglingPieces: node 0 has two cliques among its
// neighbours (1-4 and 5-7) joined through the rest of the graph (4-8-9-5),
// and two pendant pairs (10-11, 12-13) that only node 0 ties to anything.
// The hedge makes the pairs groups of their own; being both dangling, they
// are merged into one group, and the cliques stay as they were.
func TestNCutMergesDanglingPieces(t *testing.T) {
	var e [][2]int
	clique := func(lo, hi int) { e = appendHubClique(e, lo, hi) }
	clique(1, 4)
	clique(5, 7)
	e = append(e, [2]int{4, 8}, [2]int{8, 9}, [2]int{9, 5})
	e = append(e, [2]int{0, 10}, [2]int{0, 11}, [2]int{10, 11}, [2]int{0, 12}, [2]int{0, 13}, [2]int{12, 13})
	g := NewGraph(14, e)
	got := propose(t, g, nil, SplitNCut, 0)
	want := [][]int32{{1, 2, 3, 4}, {10, 11, 12, 13}, {5, 6, 7}}
	if len(got) != len(want) {
		t.Fatalf("groups %v, want %v", got, want)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("groups %v, want %v", got, want)
		}
	}
}

// TestMergeDanglingBudget: a group whose search exceeds ncutDangleBudget is
// taken as not dangling.
func TestMergeDanglingBudget(t *testing.T) {
	// 0 - {1, 2, 3}; 1 and 2 pendant; 3 on a long path 3-4-...-40.
	e := [][2]int{{0, 1}, {0, 2}, {0, 3}}
	for x := 3; x < 40; x++ {
		e = append(e, [2]int{x, x + 1})
	}
	g := NewGraph(41, e)
	groups := [][]int32{{1}, {2}, {3}}
	var w ncutWork
	if got := w.mergeDangling(g, 0, groups); len(got) != 3 {
		t.Fatalf("all three are dangling: nothing merged, got %v", got)
	}
	old := ncutDangleBudget
	ncutDangleBudget = 10
	defer func() { ncutDangleBudget = old }()
	got := w.mergeDangling(g, 0, groups)
	if len(got) != 2 || !slices.Equal(got[0], []int32{1, 2}) || !slices.Equal(got[1], []int32{3}) {
		t.Fatalf("with a budget of 10, {3} is not dangling and {1}, {2} merge: got %v", got)
	}
}
