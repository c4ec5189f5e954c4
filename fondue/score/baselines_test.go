package score

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/mcl"
)

func TestEgoComponentsByHand(t *testing.T) {
	cases := []struct {
		name  string
		n     int
		edges [][2]int
		want  int
	}{
		{"empty ego net", 0, nil, 0},
		{"no edges", 4, nil, 4},
		{"path", 4, [][2]int{{0, 1}, {1, 2}, {2, 3}}, 1},
		{"two triangles and an isolated node", 7, append(testkit.Clique(0, 1, 2), testkit.Clique(3, 4, 5)...), 3},
		{"interleaved components", 6, [][2]int{{0, 4}, {4, 2}, {1, 5}, {3, 3}}, 3},
	}
	for _, c := range cases {
		if got := egoComponents(testkit.Ego(c.n, c.edges)); got != c.want {
			t.Errorf("%s: %d components, want %d", c.name, got, c.want)
		}
	}
}

// The normalized cut sums each cluster's cut over its volume; the
// normalized association sums the share of the volume that stays inside.
func TestNormalizedCutAndAssociationByHand(t *testing.T) {
	path4 := [][2]int{{0, 1}, {1, 2}, {2, 3}}
	bridged := append(append(testkit.Clique(0, 1, 2), testkit.Clique(3, 4, 5)...), [2]int{2, 3})
	cases := []struct {
		name            string
		n               int
		edges           [][2]int
		clusters        [][]int32
		wantCut, wantNA float64
	}{
		// Degrees 1,2,2,1. {0,1}: vol 1+2 = 3, cut 1 (edge 1-2), 2 inside;
		// {2,3} the same.
		{"path split in the middle", 4, path4, [][]int32{{0, 1}, {2, 3}}, 2.0 / 3, 4.0 / 3},
		// One cluster: no cut, everything inside.
		{"path as one cluster", 4, path4, [][]int32{{0, 1, 2, 3}}, 0, 1},
		// Singletons: every cluster's cut equals its volume.
		{"path as singletons", 4, path4, [][]int32{{0}, {1}, {2}, {3}}, 4, 0},
		// Triangles 012 and 345 bridged by 2-3: each side has vol
		// 2+2+3 = 7 (3 inner edges twice, plus the bridge) and cut 1.
		{"bridged triangles", 6, bridged, [][]int32{{0, 1, 2}, {3, 4, 5}}, 2.0 / 7, 12.0 / 7},
		// Degrees: 0:2 1:2 2:3 3:3 4:2 5:2. {0,1,3}: vol 2+2+3 = 7, cut
		// edges 0-2, 1-2, 3-2, 3-4, 3-5 = 5. {2,4,5}: vol 3+2+2 = 7, the
		// same 5 cut edges.
		{"bad split", 6, bridged, [][]int32{{0, 1, 3}, {2, 4, 5}}, 10.0 / 7, 4.0 / 7},
		// The isolated node 6 has vol 0: 0/0 := 0 in both.
		{"isolated node", 7, append(testkit.Clique(0, 1, 2), testkit.Clique(3, 4, 5)...), [][]int32{{0, 1, 2}, {3, 4, 5}, {6}}, 0, 2},
		// Node 2 in no cluster: {0,1} has vol 1+2 = 3, cut 1 (edge 1-2).
		{"node left out", 3, [][2]int{{0, 1}, {1, 2}}, [][]int32{{0, 1}}, 1.0 / 3, 2.0 / 3},
	}
	for _, c := range cases {
		e := testkit.Ego(c.n, c.edges)
		if got := normalizedCut(e, c.clusters); math.Abs(got-c.wantCut) > 1e-15 {
			t.Errorf("%s: NC = %v, want %v", c.name, got, c.wantCut)
		}
		if got := normalizedAssociation(e, c.clusters); math.Abs(got-c.wantNA) > 1e-15 {
			t.Errorf("%s: association = %v, want %v", c.name, got, c.wantNA)
		}
	}
}

func TestNormalizedCutRejectsOverlap(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a node in two clusters")
		}
	}()
	normalizedCut(testkit.Ego(3, nil), [][]int32{{0, 1}, {1, 2}})
}

func TestBaselineScoresHandBuilt(t *testing.T) {
	// Node 0's neighbours 1..6 form two triangles; node 7 is isolated.
	edges := append(testkit.Clique(1, 2, 3), testkit.Clique(4, 5, 6)...)
	for k := 1; k <= 6; k++ {
		edges = append(edges, [2]int{0, k})
	}
	g := testkit.NewGraph(8, edges)
	want := map[string]struct{ node0, node1 float64 }{
		"degree": {6, 3},
		// Node 1's ego net: 0, 2, 3, all adjacent: one component.
		"cc": {2, 1},
		// MCL puts each triangle in its own cluster, nothing is cut: each
		// keeps all its volume inside, association 1 + 1. Node 1's ego net
		// is a triangle: one cluster, association 1.
		"nc": {2, 1},
		// Node 0: 15 neighbour pairs, 6 linked (the two triangles): 9/15
		// unlinked. Node 1: 3 pairs (0-2, 0-3, 2-3), all linked.
		"lcc": {9.0 / 15, 0},
	}
	for _, m := range BaselineMethods() {
		s, err := Baseline(context.Background(), g, m, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s[0]-want[m].node0) > 1e-15 || s[1] != want[m].node1 || !math.IsNaN(s[7]) {
			t.Errorf("%s: scores %v, want node0 %v node1 %v node7 NaN", m, s, want[m].node0, want[m].node1)
		}
	}
}

func TestBaselineScoresUnknownMethod(t *testing.T) {
	_, err := Baseline(context.Background(), testkit.NewGraph(2, [][2]int{{0, 1}}), "pagerank", 1, nil)
	if err == nil || !strings.Contains(err.Error(), "pagerank") || !strings.Contains(err.Error(), `"nc"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestBaselineScoresCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := testkit.ReadGraph(t, "netscience")
	s, err := Baseline(ctx, g, "nc", 2, nil)
	if !errors.Is(err, context.Canceled) || s != nil {
		t.Fatalf("scores %v err %v, want nil and context.Canceled", s != nil, err)
	}
}

// baselineBruteComponents counts components of the ego net of i by
// depth-first search over g itself.
func baselineBruteComponents(g *graph.Graph, i int) int {
	nb := g.Neighbors(i)
	in := map[int32]bool{}
	for _, v := range nb {
		in[v] = true
	}
	seen := map[int32]bool{}
	comps := 0
	for _, s := range nb {
		if seen[s] {
			continue
		}
		comps++
		stack := []int32{s}
		seen[s] = true
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, v := range g.Neighbors(int(u)) {
				if in[v] && !seen[v] {
					seen[v] = true
					stack = append(stack, v)
				}
			}
		}
	}
	return comps
}

// baselineBrutePairs returns the number of unordered pairs of i's
// neighbours and how many of them are linked, by testing every pair.
func baselineBrutePairs(g *graph.Graph, i int) (pairs, linked int) {
	nb := g.Neighbors(i)
	for a := range nb {
		for b := a + 1; b < len(nb); b++ {
			pairs++
			if g.HasEdge(int(nb[a]), int(nb[b])) {
				linked++
			}
		}
	}
	return pairs, linked
}

// The local clustering coefficient by hand: 2T/(k(k−1)), 0 below degree 2.
func TestLocalClusteringByHand(t *testing.T) {
	// 0: centre of a 4-star whose leaves 1-2 and 3-4 are linked: k=4, T=2,
	// 2·2/(4·3) = 1/3. 1: neighbours 0 and 2, linked: 1 (2 and 3 alike).
	// 5: a leaf of 4:
	// degree 1, 0. 4: neighbours 0, 3, 5; only 0-3 linked: 2·1/(3·2) = 1/3.
	// 6: isolated, 0. 7-8-9: a path; 8 has neighbours 7 and 9, unlinked: 0.
	g := testkit.NewGraph(10, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {3, 4}, {4, 5}, {7, 8}, {8, 9}})
	want := []float64{1.0 / 3, 1, 1, 1, 1.0 / 3, 0, 0, 0, 0, 0}
	for _, w := range []int{1, 3} {
		got, err := LocalClustering(context.Background(), g, w)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-15 {
				t.Errorf("%d workers: LCC(%d) = %v, want %v", w, i, got[i], want[i])
			}
		}
	}
	// The baseline score: 1 − LCC from degree 2 up, 0 below, NaN isolated.
	s, err := Baseline(context.Background(), g, "lcc", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantS := []float64{2.0 / 3, 0, 0, 0, 2.0 / 3, 0, math.NaN(), 0, 1, 0}
	for i := range wantS {
		if !(math.Abs(s[i]-wantS[i]) < 1e-15 || math.IsNaN(s[i]) && math.IsNaN(wantS[i])) {
			t.Errorf("lcc score(%d) = %v, want %v", i, s[i], wantS[i])
		}
	}
}

// LocalClustering against brute force over all neighbour pairs, on a real graph.
func TestLocalClusteringBruteForce(t *testing.T) {
	g := testkit.ReadGraph(t, "polbooks")
	got, err := LocalClustering(context.Background(), g, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		want := 0.0
		if k, linked := baselineBrutePairs(g, i); k > 0 {
			want = float64(linked) / float64(k)
		}
		if math.Abs(got[i]-want) > 1e-15 {
			t.Fatalf("LCC(%d) = %v, want %v", i, got[i], want)
		}
	}
}

func TestBaselineScoresNetscience(t *testing.T) {
	g := testkit.ReadGraph(t, "netscience")
	ctx := context.Background()
	for _, m := range BaselineMethods() {
		one, err := Baseline(ctx, g, m, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		four, err := Baseline(ctx, g, m, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range one {
			if math.Float64bits(one[i]) != math.Float64bits(four[i]) {
				t.Fatalf("%s node %d: %v with 1 worker, %v with 4", m, i, one[i], four[i])
			}
		}
		distinct := map[float64]bool{}
		for i, s := range one {
			distinct[s] = true
			var want float64
			switch m {
			case "degree":
				want = float64(g.Degree(i))
			case "cc":
				want = float64(baselineBruteComponents(g, i))
			case "nc":
				e, err := g.Ego(i, nil)
				if err != nil {
					t.Fatal(err)
				}
				want = normalizedAssociation(e, clusterMCL(t, e))
			case "lcc":
				want = 0
				if k, linked := baselineBrutePairs(g, i); k > 0 {
					want = 1 - float64(linked)/float64(k)
				}
			}
			if s != want {
				t.Fatalf("%s node %d: %v, want %v", m, i, s, want)
			}
		}
		if len(distinct) < 5 {
			t.Fatalf("%s: only %d distinct scores", m, len(distinct))
		}
	}
}

// BenchmarkBaselineScoresShared times baselineScores on the larger shared
// datasets, which are not copied into testdata: set BENCH_DATASETS to the
// directory holding condmat05.edges and fb-sc.edges, e.g.
//
//	BENCH_DATASETS=/work/shared/datasets go test -run X -bench BaselineScoresShared -benchtime 1x ./fondue
func BenchmarkBaselineScoresShared(b *testing.B) {
	dir := os.Getenv("BENCH_DATASETS")
	if dir == "" {
		b.Skip("BENCH_DATASETS not set")
	}
	for _, name := range []string{"fb-sc", "condmat05"} {
		g, err := testkit.ReadEdgesFile(filepath.Join(dir, name+".edges"))
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range BaselineMethods() {
			b.Run(name+"/"+m, func(b *testing.B) {
				for b.Loop() {
					if _, err := Baseline(context.Background(), g, m, 0, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// clusterMCL clusters e with MCL's default options.
func clusterMCL(t *testing.T, e *graph.EgoNet) [][]int32 {
	t.Helper()
	cl, err := new(mcl.Workspace).Cluster(e, mcl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// A node's error stops the baseline and is reported, the first in index
// order whatever the number of workers.
func TestBaselineParallelReportsFirstError(t *testing.T) {
	g := testkit.RandomGraph(1000, 0.01, 0, 3)
	for _, workers := range []int{1, 4} {
		_, err := baselineParallel(context.Background(), g, workers, func(_ *baselineWorker, i int) (float64, error) {
			if i == 130 || i == 900 {
				return 0, fmt.Errorf("node %d: %w", i, graph.ErrEgoTooLarge)
			}
			return 1, nil
		})
		if !errors.Is(err, graph.ErrEgoTooLarge) || !strings.HasPrefix(err.Error(), "node 130:") {
			t.Fatalf("%d workers: err = %v, want node 130's", workers, err)
		}
	}
}
