package cne

import (
	"context"
	"math"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// Expected degrees under the fitted prior, computed by brute force over all
// pairs, must equal the observed degrees to 1e-6 relative.
func checkPrior(t *testing.T, name string, g *graph.Graph) *Prior {
	t.Helper()
	p, err := FitPrior(context.Background(), g, PriorOptions{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	n := g.NumNodes()
	worst := 0.0
	for i := 0; i < n; i++ {
		if g.Degree(i) == 0 {
			continue
		}
		e := 0.0
		for j := 0; j < n; j++ {
			if j != i {
				e += p.Prob(i, j)
			}
		}
		rel := math.Abs(e-float64(g.Degree(i))) / float64(g.Degree(i))
		worst = max(worst, rel)
	}
	if worst > 1e-6 {
		t.Errorf("%s: expected degrees off by %.3g relative", name, worst)
	}
	fast := p.ExpectedDegrees()
	for i := 0; i < n; i++ {
		if d := float64(g.Degree(i)); d > 0 && math.Abs(fast[i]-d)/d > 1e-6 {
			t.Fatalf("%s: ExpectedDegrees[%d] = %g, degree %g", name, i, fast[i], d)
		}
	}
	t.Logf("%s: %d Newton steps, brute-force relative error %.2g", name, p.Iterations, worst)
	return p
}

func TestPriorRealGraphs(t *testing.T) {
	for _, name := range []string{"karate", "lesmis", "polbooks", "netscience"} {
		checkPrior(t, name, readTestGraph(t, name))
	}
}

func TestPriorDegenerateGraphs(t *testing.T) {
	star := func(n int) *graph.Graph {
		var e [][2]int
		for i := 1; i < n; i++ {
			e = append(e, [2]int{0, i})
		}
		return testkit.NewGraph(n, e)
	}
	complete := func(n int) *graph.Graph {
		var e [][2]int
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				e = append(e, [2]int{i, j})
			}
		}
		return testkit.NewGraph(n, e)
	}
	path := func(n int) *graph.Graph {
		var e [][2]int
		for i := 0; i+1 < n; i++ {
			e = append(e, [2]int{i, i + 1})
		}
		return testkit.NewGraph(n, e)
	}
	// A hub attached to every node, plus a sparse ring: degree-1..3 nodes and
	// one node of degree n-1.
	hubRing := func(n int) *graph.Graph {
		e := [][2]int{}
		for i := 1; i < n; i++ {
			e = append(e, [2]int{0, i})
			if i%3 == 0 && i+1 < n {
				e = append(e, [2]int{i, i + 1})
			}
		}
		return testkit.NewGraph(n, e)
	}
	checkPrior(t, "single edge", testkit.NewGraph(2, [][2]int{{0, 1}}))
	checkPrior(t, "star 1000", star(1000))
	checkPrior(t, "complete 30", complete(30))
	checkPrior(t, "path 500", path(500))
	checkPrior(t, "hub ring 2000", hubRing(2000))
	// Isolated nodes are left out: probability 0 with everyone.
	g := testkit.NewGraph(5, [][2]int{{0, 1}, {1, 2}, {2, 0}})
	p := checkPrior(t, "with isolated", g)
	if p.Prob(3, 0) != 0 || !math.IsInf(p.Lambda[4], -1) {
		t.Fatalf("isolated node: prob %g, lambda %g", p.Prob(3, 0), p.Lambda[4])
	}
}

func TestPriorCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FitPrior(ctx, readTestGraph(t, "karate"), PriorOptions{}); err != context.Canceled {
		t.Fatalf("err = %v", err)
	}
}
