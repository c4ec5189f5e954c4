package fondue

import (
	"math"
	"testing"
)

// lesmisWithIsolated is Les Misérables (77 nodes, degrees 1 to 36) plus two
// isolated nodes, which take no part in the model.
func lesmisWithIsolated(t *testing.T) *Graph {
	t.Helper()
	g0 := readTestGraph(t, "lesmis")
	var e [][2]int
	for i := 0; i < g0.NumNodes(); i++ {
		for _, j := range g0.Neighbors(i) {
			if int(j) > i {
				e = append(e, [2]int{i, int(j)})
			}
		}
	}
	return NewGraph(g0.NumNodes()+2, e)
}

// relDiff returns max_c |a_c - b_c| / max_c |b_c|.
func relDiff(a, b []float64) float64 {
	num, den := 0.0, 0.0
	for c := range b {
		num = max(num, math.Abs(a[c]-b[c]))
		den = max(den, math.Abs(b[c]))
	}
	return num / den
}

// The d = 8 kernels against the generic loops on the same inputs, and
// both against the exact gradient, to 1e-12 relative, on every row of a
// real graph at a random embedding:
//   - links: positives8 against addLinkGradsGeneric;
//   - negatives: negatives8 against sumNegativesGeneric on a candidate list
//     drawn with replacement from the pool, so that it holds the row itself,
//     its neighbours (both skipped) and repeats;
//   - exact: links minus gamma times the negatives, with a candidate list
//     that holds every pool node once (the row and its neighbours skipped),
//     is the exact gradient -dO/dx_i, which TestCNEGradientFiniteDifferences
//     checks against finite differences of the objective at d = 8.
func TestKernel8MatchesGenericAndExact(t *testing.T) {
	g := lesmisWithIsolated(t)
	p := fitTestPrior(t, g)
	o := CNEOptions{Dim: 8}.withDefaults()
	m := newCNEModel(g, p, o)
	n, d := g.NumNodes(), o.Dim
	X := randomEmbedding(n, d, 11).X
	pool := newNegativePool(g)
	r := splitmix{s: 5}
	skip := newBitset(n)
	worst := map[string]float64{}
	check := func(what string, i int, got, want []float64) {
		rel := relDiff(got, want)
		worst[what] = max(worst[what], rel)
		if rel > 1e-12 || math.IsNaN(rel) {
			t.Errorf("%s, row %d: relative difference %.3g\n got  %v\n want %v", what, i, rel, got, want)
		}
	}
	// gather fills a candidate list like drawBlockNegatives does.
	gather := func(idx []int32) ([]float64, []float64) {
		negX, negL := make([]float64, len(idx)*d), make([]float64, len(idx))
		for t, j := range idx {
			copy(m.row(negX, t), m.row(X, int(j)))
			negL[t] = m.lam[j]
		}
		return negX, negL
	}
	all := make([]int32, pool.n)
	for k := range all {
		all[k] = int32(pool.at(k))
	}
	allX, allL := gather(all)
	skippedNegatives := 0
	for i := 0; i < n; i++ {
		nb := g.Neighbors(i)
		if len(nb) == 0 {
			continue
		}
		xi := m.row(X, i)
		base := m.logRatio - m.lam[i]
		skip.set(int32(i))
		for _, j := range nb {
			skip.set(j)
		}

		links8, links := make([]float64, d), make([]float64, d)
		m.addLinkGrads(X, xi, nb, base, links8)
		m.addLinkGradsGeneric(X, xi, nb, base, links)
		check("links", i, links8, links)

		idx := make([]int32, 4*pool.n)
		for t := range idx {
			idx[t] = int32(pool.at(int(r.intn(uint32(pool.n)))))
		}
		negX, negL := gather(idx)
		neg8, neg := make([]float64, d), make([]float64, d)
		acc8 := m.sumNegatives(xi, skip, base, idx, negX, negL, len(idx), neg8)
		acc := m.sumNegativesGeneric(xi, skip, base, idx, negX, negL, len(idx), neg)
		if acc8 != acc {
			t.Fatalf("row %d: negatives8 accepted %d, generic %d", i, acc8, acc)
		}
		skippedNegatives += len(idx) - acc
		check("sampled negatives", i, neg8, neg)

		exact := make([]float64, d)
		m.gradExactRow(X, i, exact)
		for _, kernel := range []string{"d=8", "generic"} {
			grad := make([]float64, d)
			var accepted int
			if kernel == "d=8" {
				m.addLinkGrads(X, xi, nb, base, grad)
				accepted = m.sumNegatives(xi, skip, base, all, allX, allL, len(all), neg)
			} else {
				m.addLinkGradsGeneric(X, xi, nb, base, grad)
				accepted = m.sumNegativesGeneric(xi, skip, base, all, allX, allL, len(all), neg)
			}
			if accepted != pool.n-1-len(nb) {
				t.Fatalf("row %d: %d of %d candidates accepted, want every non-neighbour (%d)", i, accepted, pool.n, pool.n-1-len(nb))
			}
			for c := range grad {
				grad[c] -= m.gamma * neg[c]
			}
			check(kernel+" kernels against the exact gradient", i, grad, exact)
		}

		// The dense-row path of sampled mode (every non-neighbour).
		dense := make([]float64, d)
		m.addLinkGrads(X, xi, nb, base, dense)
		m.addNonNeighborGrads(X, i, dense, pool)
		check("dense row against the exact gradient", i, dense, exact)

		skip.unset(int32(i))
		for _, j := range nb {
			skip.unset(j)
		}
	}
	if skippedNegatives == 0 {
		t.Fatal("no sampled negative was skipped")
	}
	t.Logf("worst relative differences: %v; %d sampled negatives skipped", worst, skippedNegatives)
}

// sqDist, addScaledDiff and pairZ against their definitions.
func TestPairKernelDefinitions(t *testing.T) {
	g := readTestGraph(t, "karate")
	p := fitTestPrior(t, g)
	o := CNEOptions{Dim: 5}.withDefaults()
	m := newCNEModel(g, p, o)
	emb := randomEmbedding(g.NumNodes(), o.Dim, 2)
	for i := 0; i < g.NumNodes(); i++ {
		for j := 0; j < g.NumNodes(); j += 3 {
			xi, xj := emb.Row(i), emb.Row(j)
			d2 := 0.0
			for c := range xi {
				d2 += (xi[c] - xj[c]) * (xi[c] - xj[c])
			}
			if got := sqDist(xi, xj); got != d2 {
				t.Fatalf("sqDist(%d, %d) = %v, want %v", i, j, got, d2)
			}
			// P from the mixture of half-normal distance densities.
			s1, s2 := o.Sigma1, o.Sigma2
			dist := math.Sqrt(d2)
			prior := 1 / (1 + math.Exp(-(m.lam[i] + m.lam[j])))
			n1 := prior * math.Exp(-dist*dist/(2*s1*s1)) / s1
			n2 := (1 - prior) * math.Exp(-dist*dist/(2*s2*s2)) / s2
			want := n1 / (n1 + n2)
			got := 1 / (1 + math.Exp(m.pairZ(xi, xj, m.logRatio-m.lam[i], m.lam[j])))
			if math.Abs(got-want) > 1e-12*want {
				t.Fatalf("P(%d, %d) = %v, want %v", i, j, got, want)
			}
			acc := []float64{1, 2, 3, 4, 5}
			addScaledDiff(acc, 0.5, xi, xj)
			for c := range acc {
				if w := float64(c+1) + 0.5*(xi[c]-xj[c]); acc[c] != w {
					t.Fatalf("addScaledDiff coord %d: %v, want %v", c, acc[c], w)
				}
			}
		}
	}
}
