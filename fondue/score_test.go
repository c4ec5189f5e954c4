package fondue

import (
	"context"
	"math"
	"slices"
	"testing"
)

// The paper's evaluation on two small real graphs: contract r = 10% of the
// nodes into pairs (fixed seeds), score, and compare AUCs. FONDUE must beat
// the degree baseline, the combined method the best of the four baselines
// by 0.01 (issue 12's per-cell target), and each must stay within 0.02 of
// the AUC measured when the floors were set (the paper's FONDUE: .868 on
// polbooks, .897 on netscience). The combined method need not beat FONDUE
// here: on polbooks, where nearly all pairs are within two hops, it does
// not (README, "Which method to pick").
func TestQualityContractedGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("quality check runs CNE 20 times")
	}
	// Measured (10-seed means, fixed seeds, deterministic): polbooks FONDUE
	// 0.9080, combined 0.8945; netscience FONDUE 0.9204, combined 0.9262.
	floors := map[string]float64{"polbooks": 0.890, "netscience": 0.901}
	combinedFloors := map[string]float64{"polbooks": 0.875, "netscience": 0.907}
	for _, name := range []string{"polbooks", "netscience"} {
		g := readTestGraph(t, name)
		const seeds = 10
		var fondueAUC, combinedAUC float64
		base := map[string]float64{}
		for seed := uint64(0); seed < seeds; seed++ {
			c, err := Contract(g, 0.1, seed)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Score(context.Background(), c.Graph, Options{Method: MethodFONDUE, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			fs, disc, err := SplitDisconnection(context.Background(), c.Graph, res.Embedding, 100, true, false, seed, 0)
			if err != nil {
				t.Fatal(err)
			}
			combinedAUC += AUC(CombineRanks(fs, disc), c.Ambiguous, TiesAverage) / seeds
			fondueAUC += AUC(res.Scores, c.Ambiguous, TiesAverage) / seeds
			for _, m := range BaselineMethods {
				b, err := BaselineScores(context.Background(), c.Graph, m, 0)
				if err != nil {
					t.Fatal(err)
				}
				base[m] += AUC(b, c.Ambiguous, TiesAverage) / seeds
			}
		}
		best, bestName := 0.0, ""
		for m, a := range base {
			if a > best {
				best, bestName = a, m
			}
		}
		t.Logf("%s r=0.1, %d seeds: FONDUE AUC %.4f, combined %.4f, baselines %v", name, seeds, fondueAUC, combinedAUC, base)
		if fondueAUC < floors[name] || fondueAUC <= base["degree"] {
			t.Errorf("%s: FONDUE AUC %.4f (floor %.3f), degree %.4f", name, fondueAUC, floors[name], base["degree"])
		}
		if combinedAUC < combinedFloors[name] || combinedAUC < best+0.01 {
			t.Errorf("%s: combined AUC %.4f (floor %.3f), best baseline %s %.4f", name, combinedAUC, combinedFloors[name], bestName, best)
		}
	}
}

func TestScoreDeterministicAcrossWorkers(t *testing.T) {
	g := readTestGraph(t, "netscience")
	for _, method := range Methods {
		var ref *Result
		for _, w := range []int{1, 4} {
			res, err := Score(context.Background(), g, Options{Method: method, Seed: 5, Workers: w,
				Split: SplitOptions{Method: SplitMCL, Top: 5}})
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = res
				continue
			}
			for i := range res.Scores {
				if res.Scores[i] != ref.Scores[i] && !(math.IsNaN(res.Scores[i]) && math.IsNaN(ref.Scores[i])) {
					t.Fatalf("%s: node %d scores %v with 4 workers, %v with 1", method, i, res.Scores[i], ref.Scores[i])
				}
			}
			for k := range res.Proposals {
				if !slices.EqualFunc(res.Proposals[k].Groups, ref.Proposals[k].Groups, slices.Equal[[]int32]) {
					t.Fatalf("%s: proposal %d differs", method, k)
				}
			}
		}
	}
}

func TestScoreResultShape(t *testing.T) {
	// A triangle, a pendant and an isolated node.
	g := NewGraph(5, [][2]int{{0, 1}, {1, 2}, {2, 0}, {2, 3}})
	res, err := Score(context.Background(), g, Options{Seed: 1, Split: SplitOptions{Method: SplitFONDUE, Top: 2, Nodes: []int{4, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	if u := res.Unscored(); !slices.Equal(u, []int{4}) {
		t.Fatalf("unscored %v, want [4]", u)
	}
	rank := res.Ranking()
	if len(rank) != 4 || slices.Contains(rank, 4) {
		t.Fatalf("ranking %v", rank)
	}
	for k := 1; k < len(rank); k++ {
		if res.Scores[rank[k]] > res.Scores[rank[k-1]] {
			t.Fatalf("ranking not descending: %v", rank)
		}
	}
	if res.Ambiguity[rank[0]] != 1 || !math.IsNaN(res.Ambiguity[4]) {
		t.Fatalf("ambiguity of best %g, of isolated %g", res.Ambiguity[rank[0]], res.Ambiguity[4])
	}
	// Top 2 plus node 3; the isolated node is skipped.
	if len(res.Proposals) != 3 || res.Proposals[2].Node != 3 {
		t.Fatalf("proposals %+v", res.Proposals)
	}
	for _, p := range res.Proposals {
		var all []int32
		for _, grp := range p.Groups {
			all = append(all, grp...)
		}
		slices.Sort(all)
		if !slices.Equal(all, g.Neighbors(p.Node)) {
			t.Fatalf("node %d: groups %v do not partition its neighbours %v", p.Node, p.Groups, g.Neighbors(p.Node))
		}
		if p.Score != res.Scores[p.Node] {
			t.Fatalf("proposal score %g, node score %g", p.Score, res.Scores[p.Node])
		}
	}
	if res.Timings.Embedding <= 0 || res.CNE.Epochs == 0 || res.Prior == nil {
		t.Fatalf("missing stats: %+v %+v", res.Timings, res.CNE)
	}
}

func TestScoreErrors(t *testing.T) {
	g := readTestGraph(t, "karate")
	if _, err := Score(context.Background(), g, Options{Method: "pagerank"}); err == nil {
		t.Fatal("unknown method accepted")
	}
	if _, err := Score(context.Background(), g, Options{Split: SplitOptions{Method: "kmeans"}}); err == nil {
		t.Fatal("unknown splitter accepted")
	}
	if _, err := Score(context.Background(), NewGraph(3, nil), Options{}); err == nil {
		t.Fatal("edgeless graph accepted")
	}
	if _, err := Score(context.Background(), g, Options{Method: MethodDegree, Split: SplitOptions{Method: SplitFONDUE, Top: 1}}); err == nil {
		t.Fatal("fondue splitter without embedding accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Score(ctx, g, Options{}); err != context.Canceled {
		t.Fatalf("cancelled: err = %v", err)
	}
}

// A node made by merging two cliques must be split back into them by MCL,
// and by the FONDUE sign vector.
func TestSplitRecoversMergedCliques(t *testing.T) {
	// Clique A on 1..6, clique B on 7..12, a sparse path 13..30 linking
	// them far apart, and node 0 adjacent to both cliques.
	var e [][2]int
	for a := 1; a <= 6; a++ {
		for b := a + 1; b <= 6; b++ {
			e = append(e, [2]int{a, b}, [2]int{a + 6, b + 6})
		}
		e = append(e, [2]int{0, a}, [2]int{0, a + 6})
	}
	for k := 13; k < 30; k++ {
		e = append(e, [2]int{k, k + 1})
	}
	e = append(e, [2]int{1, 13}, [2]int{30, 7})
	g := NewGraph(31, e)
	for _, sp := range Splitters {
		res, err := Score(context.Background(), g, Options{Seed: 2, Split: SplitOptions{Method: sp, Nodes: []int{0}}})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Proposals[0]
		want := [][]int32{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}}
		if !slices.EqualFunc(p.Groups, want, slices.Equal[[]int32]) {
			t.Errorf("%s: groups %v, want %v", sp, p.Groups, want)
		}
	}
}

func TestPercentiles(t *testing.T) {
	nan := math.NaN()
	got := percentiles([]float64{3, 1, nan, 2, 2})
	want := []float64{1, 0.25, nan, 0.75, 0.75}
	for i := range want {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Fatalf("percentiles = %v, want %v", got, want)
		}
	}
}
