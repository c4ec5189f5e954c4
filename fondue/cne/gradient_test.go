package cne

import (
	"math"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
)

// lesmisWithIsolated is Les Misérables (77 nodes, degrees 1 to 36) plus two
// isolated nodes, which take no part in the model.
func lesmisWithIsolated(t *testing.T) *graph.Graph {
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
	return testkit.NewGraph(g0.NumNodes()+2, e)
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
	o := Options{Dim: 8}.WithDefaults()
	m := newCNEModel(g, p, o)
	n, d := g.NumNodes(), o.Dim
	X := randomEmbedding(n, d, 11).X
	pool := newNegativePool(g)
	r := rng.SplitMix{S: 5}
	skip := newBitset(n)
	worst := map[string]float64{}
	check := func(what string, i int, got, want []float64) {
		rel := relDiff(got, want)
		worst[what] = max(worst[what], rel)
		if rel > 1e-12 || math.IsNaN(rel) {
			t.Errorf("%s, row %d: relative difference %.3g\n got  %v\n want %v", what, i, rel, got, want)
		}
	}
	// gather fills a candidate list like drawBlockNegatives does, in the
	// layout of sumNegatives (lanes of four at d = 8), and row-major for
	// sumNegativesGeneric.
	type candidates struct {
		idx        []int32
		x, rows, l []float64
	}
	gather := func(idx []int32) candidates {
		whole := (len(idx) + 7) &^ 7
		idx = append(make([]int32, 0, whole), idx...)
		c := candidates{idx: idx, x: make([]float64, whole*d), rows: make([]float64, len(idx)*d), l: make([]float64, len(idx), whole)}
		m.gatherNegatives(X, idx, c.x, c.l)
		for t, j := range idx {
			copy(m.row(c.rows, t), m.row(X, int(j)))
		}
		return c
	}
	all := make([]int32, pool.n)
	for k := range all {
		all[k] = int32(pool.at(k))
	}
	allC := gather(all)
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
		m.addLinkGrads(X, xi, nb, base, links8, &blockWork{})
		m.addLinkGradsGeneric(X, xi, nb, base, links)
		check("links", i, links8, links)

		// An odd length: the last group of four is partial.
		idx := make([]int32, 4*pool.n+1+2*(i%2))
		for t := range idx {
			idx[t] = int32(pool.at(int(r.Intn(uint32(pool.n)))))
		}
		cand := gather(idx)
		neg8, neg := make([]float64, d), make([]float64, d)
		acc8 := m.sumNegatives(xi, skip, base, cand.idx, cand.x, cand.l, len(idx), neg8)
		acc := m.sumNegativesGeneric(xi, skip, base, cand.idx, cand.rows, cand.l, len(idx), neg)
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
				m.addLinkGrads(X, xi, nb, base, grad, &blockWork{})
				accepted = m.sumNegatives(xi, skip, base, allC.idx, allC.x, allC.l, len(all), neg)
			} else {
				m.addLinkGradsGeneric(X, xi, nb, base, grad)
				accepted = m.sumNegativesGeneric(xi, skip, base, allC.idx, allC.rows, allC.l, len(all), neg)
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
		m.addLinkGrads(X, xi, nb, base, dense, &blockWork{})
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
	o := Options{Dim: 5}.WithDefaults()
	m := newCNEModel(g, p, o)
	emb := randomEmbedding(g.NumNodes(), o.Dim, 2)
	for i := 0; i < g.NumNodes(); i++ {
		for j := 0; j < g.NumNodes(); j += 3 {
			xi, xj := emb.Row(i), emb.Row(j)
			d2 := 0.0
			for c := range xi {
				d2 += (xi[c] - xj[c]) * (xi[c] - xj[c])
			}
			if got := vec.SqDist(xi, xj); got != d2 {
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

// pairLanes8AVX2 against pairLanes8, bit for bit (to rounding on a build
// that fuses multiply-adds), on a real graph at a
// random embedding, starting from lanes that already hold sums: sampled
// negatives (with the row and its neighbours among the candidates, up to
// several hundred) and links (each row's neighbours), with partial last
// groups.
func TestPairLanes8AVX2MatchesGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this machine: the d = 8 kernels run pairLanes8 alone")
	}
	// A build that fuses x*y+z (GOAMD64=v3 or later) rounds the Go loop
	// differently from the kernel: there the two agree to 1e-12 relative.
	tol := 0.0
	if goFusesMulAdd() {
		tol = 1e-12
	}
	g := lesmisWithIsolated(t)
	p := fitTestPrior(t, g)
	m := newCNEModel(g, p, Options{Dim: 8}.WithDefaults())
	n := g.NumNodes()
	X := randomEmbedding(n, 8, 4).X
	pool := newNegativePool(g)
	r := rng.SplitMix{S: 9}
	skip := newBitset(n)
	skipped, linkGroups := 0, 0
	// compare runs both over the first n of idx; the lanes past n in the
	// last group hold other partners, which the kernel must mask.
	compare := func(what string, i int, skip bitset, idx []int32, n int, links bool) int {
		whole := (n + 7) &^ 7
		px, pl := make([]float64, whole*8), make([]float64, whole)
		m.gatherNegatives(X, idx[:min(whole, len(idx))], px, pl)
		xi, base := m.row(X, i), m.logRatio-m.lam[i]
		var start [8][4]float64
		for c := range start {
			for l := range start[c] {
				start[c][l] = r.Norm()
			}
		}
		want, got := start, start
		a := m.pairLanes8(xi, skip, base, idx, px, pl, 0, n, &want, links)
		var sk *uint64
		var id *int32
		if !links {
			sk, id = &skip[0], &idx[0]
		}
		b := pairLanes8AVX2(&xi[0], sk, base, m.halfGamma, id, &px[0], &pl[0], n, &got, links)
		same := want == got
		if tol > 0 {
			same = true
			for c := range got {
				same = same && relDiff(got[c][:], want[c][:]) <= tol
			}
		}
		if a != b || !same {
			t.Fatalf("%s, row %d, %d partners: kernel accepted %d, Go %d\n got  %v\n want %v", what, i, n, b, a, got, want)
		}
		return a
	}
	for i := 0; i < n; i++ {
		nb := g.Neighbors(i)
		if len(nb) == 0 {
			continue
		}
		if len(nb) >= 4 {
			compare("links", i, nil, nb, len(nb)-i%4, true)
			linkGroups += len(nb) / 4
		}
		skip.set(int32(i))
		for _, j := range nb {
			skip.set(j)
		}
		idx := make([]int32, 4+i*5, (4+i*5+7)&^7)
		for k := range idx {
			idx[k] = int32(pool.at(int(r.Intn(uint32(pool.n)))))
		}
		k := len(idx) - i%4
		skipped += k - compare("negatives", i, skip, idx, k, false)
		skip.unset(int32(i))
		for _, j := range nb {
			skip.unset(j)
		}
	}
	if skipped == 0 || linkGroups == 0 {
		t.Fatalf("%d candidates skipped, %d groups of links: the test missed a path", skipped, linkGroups)
	}
}

var fmaA, fmaB, fmaC = 1 + 0x1p-30, 1 - 0x1p-30, -1.0

//go:noinline
func mulAdd(x, y, z float64) float64 { return x*y + z }

// goFusesMulAdd says whether this build turns x*y+z in registers into one
// fused multiply-add, as GOAMD64=v3 does: (1+e)(1-e)-1 is -e^2 fused and 0
// rounded first.
func goFusesMulAdd() bool { return mulAdd(fmaA, fmaB, fmaC) != 0 }

// BenchmarkNegatives8 times the d = 8 negatives kernel on 1024 candidates
// in cache (ns/op is per candidate).
func BenchmarkNegatives8(b *testing.B) {
	g := readTestGraph(b, "lesmis")
	m := newCNEModel(g, fitTestPrior(b, g), Options{Dim: 8}.WithDefaults())
	X := randomEmbedding(g.NumNodes(), 8, 4).X
	r := rng.SplitMix{S: 1}
	idx := make([]int32, 1024)
	for k := range idx {
		idx[k] = int32(r.Intn(uint32(g.NumNodes())))
	}
	negX, negL := make([]float64, len(idx)*8), make([]float64, len(idx))
	m.gatherNegatives(X, idx, negX, negL)
	skip := newBitset(g.NumNodes())
	skip.set(3)
	b.ResetTimer()
	for range b.N / len(idx) {
		m.negatives8(m.row(X, 3), skip, m.logRatio-m.lam[3], idx, negX, negL, len(idx))
	}
}

// gatherNegatives against the lane layout's definition at d = 8 (the
// AVX2 copy for whole groups of four, where it runs, and the Go loop for
// the rest) and against plain rows otherwise, for every length up to 21.
func TestGatherNegativesLayout(t *testing.T) {
	g := lesmisWithIsolated(t)
	p := fitTestPrior(t, g)
	for _, d := range []int{8, 3} {
		m := newCNEModel(g, p, Options{Dim: d}.WithDefaults())
		X := randomEmbedding(g.NumNodes(), d, 6).X
		r := rng.SplitMix{S: 3}
		for k := 0; k <= 21; k++ {
			idx := make([]int32, k)
			for s := range idx {
				idx[s] = int32(r.Intn(uint32(g.NumNodes())))
			}
			whole := (k + 7) &^ 7
			px, pl := make([]float64, whole*d), make([]float64, whole)
			m.gatherNegatives(X, idx, px, pl)
			for s, j := range idx {
				if pl[s] != m.lam[j] {
					t.Fatalf("d=%d, %d rows: multiplier %d is %v, want %v", d, k, s, pl[s], m.lam[j])
				}
				for c := 0; c < d; c++ {
					at := s*d + c
					if d == 8 {
						at = (s/4)*32 + 4*c + s%4
					}
					if px[at] != X[int(j)*d+c] {
						t.Fatalf("d=%d, %d rows: row %d coordinate %d is %v, want %v", d, k, s, c, px[at], X[int(j)*d+c])
					}
				}
			}
		}
	}
}
