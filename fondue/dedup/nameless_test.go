package dedup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// lattice is a ring of n nodes each linked to the k nearest on each side,
// with node 0's links split in two: node n takes those to 1, 3, ... and
// n-2, n-4, ... (every second one on each side). The planted pair is (0, n).
func lattice(t *testing.T, n, k int) (*graph.Graph, [2]int) {
	t.Helper()
	var edges [][2]int
	for i := 0; i < n; i++ {
		for d := 1; d <= k; d++ {
			j := (i + d) % n
			switch {
			case i == 0 && d%2 == 1:
				edges = append(edges, [2]int{n, j})
			case j == 0 && d%2 == 0:
				edges = append(edges, [2]int{i, n})
			default:
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	g, err := graph.NewGraph(n+1, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g, [2]int{0, n}
}

// Fault a, c: with no names, and every node a target, Find finds
// candidates from the graph alone and every score is finite; of the pairs
// with the planted piece, the one with its original is the best.
func TestFindNoNamesPlantedFirst(t *testing.T) {
	for _, k := range []int{3, 4} {
		g, dup := lattice(t, 60, k)
		in := Input{Graph: g, Names: make([]string, g.NumNodes())}
		res, err := Find(context.Background(), in, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Candidates == 0 {
			t.Fatal("no candidates")
		}
		var withDup []Pair
		for _, p := range res.Pairs {
			if math.IsInf(p.Score, 0) || math.IsNaN(p.Score) {
				t.Fatalf("pair %d-%d: score %v", p.A, p.B, p.Score)
			}
			if p.B == dup[1] {
				withDup = append(withDup, p)
			}
		}
		if len(withDup) < 2 {
			t.Fatalf("k %d: %d pairs with the piece", k, len(withDup))
		}
		if p := withDup[0]; p.A != dup[0] || p.Score <= withDup[1].Score {
			t.Errorf("k %d: best pair of the piece %d-%d (%.3g), next %.3g; want the planted %v first", k, p.A, p.B, p.Score, withDup[1].Score, dup)
			for _, q := range withDup[:min(5, len(withDup))] {
				t.Logf("%d-%d %.3f %v", q.A, q.B, q.Score, q.Reasons)
			}
		}
	}
}

// Fault a: the tiny co-authorship edge list of the command's example (ten
// authors, 24 papers, every node a target, no names) gave -Inf scores;
// with the ids as names ("a:3": not a name) it found no candidate.
func TestFindTinyScoresFinite(t *testing.T) {
	var edges [][2]int
	// authors 0..9, papers 10..33; paper p written by the two (or three) authors below
	by := [][]int{{0, 1}, {1, 4}, {2, 7}, {3, 2}, {4, 5}, {5, 0}, {6, 3}, {7, 6}, {0, 1}, {1, 4}, {2, 7}, {3, 2},
		{4, 5}, {5, 0}, {6, 3}, {7, 6}, {0, 1}, {1, 4}, {2, 7, 8}, {3, 2, 9}, {4, 5, 8}, {5, 0, 9}, {6, 3, 8}, {7, 6, 9}}
	for p, as := range by {
		for _, a := range as {
			edges = append(edges, [2]int{a, 10 + p})
		}
	}
	g, err := graph.NewGraph(34, edges)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 34) // the command's names without a names file: the ids
	for i := range ids {
		ids[i] = fmt.Sprintf("a:%d", i)
	}
	for _, names := range [][]string{make([]string, 34), ids, append([]string{"Anna Adams", "Boris Baker", "Carla Clark",
		"Dmitri Davis", "Elena Evans", "Felix Fisher", "Greta Green", "Hans Hughes", "Thomas Lucas", "Thomas LUCAS"}, make([]string, 24)...)} {
		res, err := Find(context.Background(), Input{Graph: g, Names: names}, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Pairs) == 0 {
			t.Fatal("no pairs")
		}
		for _, p := range res.Pairs {
			if math.IsInf(p.Score, 0) || math.IsNaN(p.Score) {
				t.Fatalf("names %q...: pair %d-%d score %v", names[0], p.A, p.B, p.Score)
			}
			for _, r := range p.Reasons {
				if math.IsInf(r.Weight, 0) || math.IsNaN(r.Weight) {
					t.Fatalf("pair %d-%d reason %q weight %v", p.A, p.B, r.Text, r.Weight)
				}
			}
		}
	}
}

// Fault b: too little to learn from is its own error, not bad input.
func TestFindTooLittle(t *testing.T) {
	g, err := graph.NewGraph(3, [][2]int{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Find(context.Background(), Input{Graph: g, Names: make([]string, 3)}, Options{})
	if !errors.Is(err, ErrTooLittle) || errors.Is(err, ErrInput) {
		t.Errorf("err = %v, want ErrTooLittle only", err)
	}
}

// linkedCandidates against brute force: walk counts from the adjacency
// matrix, divided by the degree, top max(MaxLinked, 2 degree) per node, own neighbours
// out, hubs (degree > MaxFanout) not walked through.
func TestLinkedCandidatesBruteForce(t *testing.T) {
	const n, maxLinked, fanout = 40, 3, 7
	r := rng.SplitMix{S: 5}
	var edges [][2]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if r.Intn(100) < 12 {
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	g, err := graph.NewGraph(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	for _, e := range edges {
		adj[e[0]][e[1]], adj[e[1]][e[0]] = true, true
	}
	ok := func(v int) bool { return g.Degree(v) <= fanout }
	// node 0 has a name no key pairs: it is walked through, never a candidate
	want := map[uint64]bool{}
	for a := 1; a < n; a++ {
		score := make([]float64, n)
		for b := 1; b < n; b++ {
			if b == a || adj[a][b] {
				continue
			}
			c := 0
			for x := 0; x < n; x++ {
				if !adj[a][x] || !ok(x) {
					continue
				}
				for y := 0; y < n; y++ {
					if y != a && adj[x][y] && ok(y) && adj[y][b] && b != x {
						c++ // a-x-y-b
					}
				}
			}
			score[b] = float64(c) / float64(g.Degree(b))
		}
		var bs []int
		for b := range score {
			if score[b] > 0 {
				bs = append(bs, b)
			}
		}
		slices.SortFunc(bs, func(x, y int) int {
			if c := cmp.Compare(score[y], score[x]); c != 0 {
				return c
			}
			return cmp.Compare(x, y)
		})
		for _, b := range bs[:min(max(maxLinked, 2*g.Degree(a)), len(bs))] {
			want[uint64(min(a, b))<<32|uint64(max(a, b))] = true
		}
	}
	names := make([]string, n)
	names[0] = "Zed Quux"
	e := newEngine(Input{Graph: g, Names: names}, Options{MaxLinked: maxLinked, MaxFanout: fanout, Workers: 2}.withDefaults())
	if err := e.prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, err := e.linkedCandidates(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	got = slices.Compact(got)
	if b := LinkedBound(n, int64(g.NumEdges()), Options{MaxLinked: maxLinked}); int64(len(got)) > b {
		t.Errorf("%d pairs, above LinkedBound %d", len(got), b)
	}
	if len(got) != len(want) {
		t.Errorf("%d pairs, brute force %d", len(got), len(want))
	}
	for _, c := range got {
		if !want[c] {
			a, b := unpair(c)
			t.Errorf("pair %d-%d not in the brute force", a, b)
		}
	}
}

// The linked-neighbour blocking and the all-neighbour profiles give the
// same result for any number of workers.
func TestFindNoNamesDeterministicAcrossWorkers(t *testing.T) {
	g, _ := lattice(t, 300, 4)
	in := Input{Graph: g, Names: make([]string, g.NumNodes())}
	var first *Result
	for _, w := range []int{1, 3, 2} {
		res, err := Find(context.Background(), in, Options{Seed: 4, Workers: w, MaxLinked: 5})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
		} else if !reflect.DeepEqual(first, res) {
			t.Fatalf("workers %d: result differs from workers 1", w)
		}
	}
}
