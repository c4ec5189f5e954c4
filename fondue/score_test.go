package fondue

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/errs"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

func TestScoreDeterministicAcrossWorkers(t *testing.T) {
	g := testkit.ReadGraph(t, "netscience")
	for _, method := range score.Methods() {
		var ref *Result
		for _, w := range []int{1, 4} {
			res, err := Score(context.Background(), g, Options{Method: method, Seed: 5, Workers: w,
				Split: SplitOptions{Splitter: split.Find(split.Splitters(), split.MCL), Top: 5}})
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
	g := testkit.NewGraph(5, [][2]int{{0, 1}, {1, 2}, {2, 0}, {2, 3}})
	res, err := Score(context.Background(), g, Options{Seed: 1, Split: SplitOptions{Splitter: split.Find(split.Splitters(), split.FONDUE), Top: 2, Nodes: []int{4, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	if u := res.Unscored(nil); !slices.Equal(u, []int{4}) {
		t.Fatalf("unscored %v, want [4]", u)
	}
	// Of chosen targets, only those chosen: the isolated node when it is
	// one, none when it is not.
	if u := res.Unscored([]bool{true, false, false, true, true}); !slices.Equal(u, []int{4}) {
		t.Fatalf("unscored targets %v, want [4]", u)
	}
	if u := res.Unscored([]bool{true, true, false, false, false}); len(u) != 0 {
		t.Fatalf("unscored targets %v, want none", u)
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
	g := testkit.ReadGraph(t, "karate")
	var oe *errs.OptionsError
	if _, err := Score(context.Background(), g, Options{Method: "pagerank"}); !errors.As(err, &oe) {
		t.Fatalf("unknown method: err = %v, want an *OptionsError", err)
	}
	if _, err := Score(context.Background(), testkit.NewGraph(3, nil), Options{}); !errors.Is(err, ErrNothingToScore) {
		t.Fatalf("edgeless graph: err = %v, want ErrNothingToScore", err)
	}
	fondueSplitter := split.Find(split.Splitters(), split.FONDUE)
	if _, err := Score(context.Background(), g, Options{Method: score.MethodDegree, Split: SplitOptions{Splitter: fondueSplitter, Top: 1}}); !errors.As(err, &oe) {
		t.Fatalf("fondue splitter without embedding: err = %v, want an *OptionsError", err)
	}
	if _, err := ProposeSplits(context.Background(), g, nil, []int{0}, Options{Split: SplitOptions{Splitter: fondueSplitter}}); !errors.As(err, &oe) {
		t.Fatalf("ProposeSplits with the fondue splitter and no embedding: err = %v, want an *OptionsError", err)
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
	g := testkit.NewGraph(31, e)
	for _, sp := range split.Splitters() {
		res, err := Score(context.Background(), g, Options{Seed: 2, Split: SplitOptions{Splitter: sp, Nodes: []int{0}}})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Proposals[0]
		want := [][]int32{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}}
		if !slices.EqualFunc(p.Groups, want, slices.Equal[[]int32]) {
			t.Errorf("%s: groups %v, want %v", sp.Name(), p.Groups, want)
		}
	}
}

func TestPercentiles(t *testing.T) {
	nan := math.NaN()
	got := score.Percentiles([]float64{3, 1, nan, 2, 2})
	want := []float64{1, 0.25, nan, 0.75, 0.75}
	for i := range want {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Fatalf("percentiles = %v, want %v", got, want)
		}
	}
}

// wroteGraph is a small (:Author)-[:WROTE]->(:Paper) graph: authors are
// nodes 0..na-1, papers na..na+np-1; author 0 wrote every paper of two
// separate groups (a homonym of two people), the others a few papers each.
func wroteGraph(na, np int, seed uint64) (*graph.Graph, []bool) {
	var edges [][2]int
	r := rng.SplitMix{S: seed}
	for p := 0; p < np; p++ {
		paper := na + p
		group := p % 2
		// two or three co-authors from the paper's group of authors
		for k := 0; k < 2+int(r.Intn(2)); k++ {
			a := 1 + group + 2*int(r.Intn(uint32((na-1)/2)))
			edges = append(edges, [2]int{a, paper})
		}
		if p < np/2 {
			edges = append(edges, [2]int{0, paper})
		}
	}
	targets := make([]bool, na+np)
	for a := 0; a < na; a++ {
		targets[a] = true
	}
	return testkit.NewGraph(na+np, edges), targets
}

func TestScoreTargets(t *testing.T) {
	g, targets := wroteGraph(41, 200, 3)
	for _, method := range score.Methods() {
		res, err := Score(context.Background(), g, Options{Method: method, Seed: 2, Targets: targets,
			Split: SplitOptions{Splitter: split.Splitters()[0], Top: 3}})
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		scored := 0
		for i := range res.Scores {
			isTarget := targets[i] && g.Degree(i) > 0
			if math.IsNaN(res.Scores[i]) == isTarget || math.IsNaN(res.Ambiguity[i]) == isTarget || (res.Entities[i] > 0) != isTarget {
				t.Fatalf("%s: node %d (target %v, degree %d): score %v, ambiguity %v, entities %d",
					method, i, targets[i], g.Degree(i), res.Scores[i], res.Ambiguity[i], res.Entities[i])
			}
			if isTarget {
				scored++
			}
		}
		// Percentiles among the targets: the top one is 1, the lowest 1/scored or more.
		rank := res.Ranking()
		if len(rank) != scored || res.Ambiguity[rank[0]] != 1 {
			t.Fatalf("%s: %d ranked for %d scored targets; top ambiguity %v", method, len(rank), scored, res.Ambiguity[rank[0]])
		}
		for _, i := range rank {
			le := 0
			for _, j := range rank {
				if res.Scores[j] <= res.Scores[i] {
					le++
				}
			}
			if want := float64(le) / float64(scored); res.Ambiguity[i] != want {
				t.Fatalf("%s: node %d ambiguity %v, want %v (its percentile among the %d targets)", method, i, res.Ambiguity[i], want, scored)
			}
		}
		for _, p := range res.Proposals {
			if !targets[p.Node] {
				t.Fatalf("%s: proposal for context node %d", method, p.Node)
			}
		}
	}
	if _, err := Score(context.Background(), g, Options{Targets: targets[:5]}); !errors.As(err, new(*errs.OptionsError)) {
		t.Fatalf("short Targets: %v, want an OptionsError", err)
	}
	iso := testkit.NewGraph(3, [][2]int{{0, 1}})
	if _, err := Score(context.Background(), iso, Options{Method: score.MethodDegree, Targets: []bool{false, false, true}}); !errors.Is(err, ErrNothingToScore) {
		t.Fatalf("only an isolated target: %v, want ErrNothingToScore", err)
	}
}
