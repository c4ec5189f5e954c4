package cne

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
)

func readTestGraph(t testing.TB, name string) *graph.Graph { return testkit.ReadGraph(t, name) }

func fitTestPrior(t testing.TB, g *graph.Graph) *Prior {
	t.Helper()
	p, err := FitPrior(context.Background(), g, PriorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func randomEmbedding(n, d int, seed uint64) *Embedding {
	return &Embedding{Dim: d, X: testkit.RandomRows(n, d, seed)}
}

// The analytic gradient of -O must match central finite differences of the
// exact objective, coordinate by coordinate, at d = 3 and at the default
// d = 8 (whose sampled-mode kernels TestKernel8MatchesGenericAndExact checks
// against this gradient).
func TestCNEGradientFiniteDifferences(t *testing.T) {
	g := readTestGraph(t, "karate")
	p := fitTestPrior(t, g)
	for _, c := range []struct {
		dim int
		s2  float64
	}{{3, 2}, {3, 8}, {8, 2}} {
		dim, s2 := c.dim, c.s2
		o := Options{Dim: dim, Sigma2: s2}.WithDefaults()
		m := newCNEModel(g, p, o)
		emb := randomEmbedding(g.NumNodes(), o.Dim, 7)
		X := emb.X
		grad := make([]float64, o.Dim)
		worst := 0.0
		for _, i := range []int{0, 5, 16, 33} {
			m.gradExactRow(X, i, grad)
			for c := 0; c < o.Dim; c++ {
				k := i*o.Dim + c
				const h = 1e-5
				old := X[k]
				X[k] = old + h
				up := -m.objective(X)
				X[k] = old - h
				down := -m.objective(X)
				X[k] = old
				fd := (up - down) / (2 * h)
				rel := math.Abs(fd-grad[c]) / math.Max(1e-3, math.Abs(fd))
				worst = max(worst, rel)
				if rel > 1e-6 {
					t.Errorf("d=%d sigma2=%g node %d coord %d: analytic %.10g, finite difference %.10g", dim, s2, i, c, grad[c], fd)
				}
			}
		}
		t.Logf("d=%d sigma2=%g: worst relative gradient error %.2g", dim, s2, worst)
	}
}

// The sampled gradient is an unbiased estimate of the exact one: averaged
// over many independent draws it converges to it, for every row of a block
// (the rows share their candidate negatives) and with isolated nodes present.
func TestCNESampledGradientUnbiased(t *testing.T) {
	// Two isolated nodes: they must never be drawn as negatives.
	g := lesmisWithIsolated(t)
	p := fitTestPrior(t, g)
	o := Options{Dim: 4}.WithDefaults()
	m := newCNEModel(g, p, o)
	n := g.NumNodes()
	emb := randomEmbedding(n, o.Dim, 3)
	pool := newNegativePool(g)
	if pool.n != n-2 {
		t.Fatalf("pool has %d nodes", pool.n)
	}
	var w blockWork
	lo, hi := 8, 16 // degrees 1 to 36 among them
	exact := make([]float64, n*o.Dim)
	for i := lo; i < hi; i++ {
		m.gradExactRow(emb.X, i, exact[i*o.Dim:(i+1)*o.Dim])
	}
	one := make([]float64, n*o.Dim)
	sum := make([]float64, n*o.Dim)
	sumSq := make([]float64, n*o.Dim)
	const draws = 20000
	for d := 0; d < draws; d++ {
		r := rng.SplitMix{S: rng.StreamSeed(1, rng.StreamNegatives, uint64(d), 0)}
		m.gradSampledBlock(emb.X, one, lo, hi, 1, pool, &r, &w)
		for k := lo * o.Dim; k < hi*o.Dim; k++ {
			sum[k] += one[k]
			sumSq[k] += one[k] * one[k]
		}
	}
	// Unbiased: every coordinate's mean lies within 5 standard errors of the
	// exact value (a biased estimator drifts out as draws grow).
	for k := lo * o.Dim; k < hi*o.Dim; k++ {
		mean := sum[k] / draws
		se := math.Sqrt(max(sumSq[k]/draws-mean*mean, 0) / draws)
		if math.Abs(mean-exact[k]) > 5*se+1e-12 {
			i := k / o.Dim
			t.Errorf("node %d (degree %d) coord %d: mean sampled %.6g, exact %.6g, standard error %.3g",
				i, g.Degree(i), k%o.Dim, mean, exact[k], se)
		}
	}
}

// When NegRatio x degree reaches the number of non-neighbours, the sampled
// gradient uses every non-neighbour and equals the exact one.
func TestCNESampledGradientDenseRowIsExact(t *testing.T) {
	g := readTestGraph(t, "karate")
	p := fitTestPrior(t, g)
	o := Options{Dim: 3}.WithDefaults()
	m := newCNEModel(g, p, o)
	n := g.NumNodes()
	emb := randomEmbedding(n, o.Dim, 5)
	exact := make([]float64, o.Dim)
	got := make([]float64, n*o.Dim)
	i, _ := g.Index("34") // degree 17 of 34 nodes
	m.gradExactRow(emb.X, i, exact)
	r := rng.SplitMix{S: 1}
	var w blockWork
	m.gradSampledBlock(emb.X, got, i, i+1, 5, newNegativePool(g), &r, &w)
	for c := range exact {
		if math.Abs(got[i*o.Dim+c]-exact[c]) > 1e-10*math.Max(1, math.Abs(exact[c])) {
			t.Fatalf("coord %d: %g, exact %g", c, got[i*o.Dim+c], exact[c])
		}
	}
}

// Training must raise the exact log-likelihood far above the random start,
// and the posterior must separate edges from non-edges.
func TestCNEFitImprovesObjective(t *testing.T) {
	g := readTestGraph(t, "polbooks")
	p := fitTestPrior(t, g)
	for _, mode := range []Mode{ModeExact, ModeSampled} {
		o := Options{Mode: mode}
		start, _, err := Fit(context.Background(), g, p, Options{Mode: mode, MaxEpochs: 1, LearningRate: 1e-12, NoiseStart: true}, Run{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		smooth, _, err := Fit(context.Background(), g, p, Options{Mode: mode, MaxEpochs: 1, LearningRate: 1e-12}, Run{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		emb, st, err := Fit(context.Background(), g, p, o, Run{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		m := newCNEModel(g, p, o.WithDefaults())
		before, smoothed, after := m.objective(start.X), m.objective(smooth.X), m.objective(emb.X)
		t.Logf("%v: %d epochs (converged %v), log-likelihood %.1f (noise), %.1f (smoothed start) -> %.1f", mode, st.Epochs, st.Converged, before, smoothed, after)
		// Measured: noise about -3000, smoothed start -1209, fits -934.
		if smoothed < before/2 || after < smoothed {
			t.Errorf("%v: log-likelihood %.1f at the noise, %.1f at the smoothed start, %.1f fitted", mode, before, smoothed, after)
		}
		if !st.Converged {
			t.Errorf("%v: did not converge in %d epochs", mode, st.Epochs)
		}
		// The random start is at about -3000 on polbooks, a fit near -930.
		if after < before/2.5 {
			t.Errorf("%v: log-likelihood only went from %.1f to %.1f", mode, before, after)
		}
		// Reconstruction: an edge should have a higher posterior than a
		// non-edge nearly always (AUC by brute force over all pairs).
		var pe, pn []float64
		for i := 0; i < g.NumNodes(); i++ {
			for j := i + 1; j < g.NumNodes(); j++ {
				if g.HasEdge(i, j) {
					pe = append(pe, m.posterior(emb.X, i, j))
				} else {
					pn = append(pn, m.posterior(emb.X, i, j))
				}
			}
		}
		wins := 0.0
		for _, a := range pe {
			for _, b := range pn {
				if a > b {
					wins++
				} else if a == b {
					wins += 0.5
				}
			}
		}
		auc := wins / float64(len(pe)*len(pn))
		t.Logf("%v: reconstruction AUC %.4f", mode, auc)
		// Measured: exact 0.9557, sampled 0.9560 (0.9561, 0.9548 from noise
		// with the gradient test alone).
		if auc < 0.95 {
			t.Errorf("%v: reconstruction AUC %.4f, want >= 0.95", mode, auc)
		}
	}
}

// communityGraph returns a random graph on n nodes: communities of 60
// whose members link to about 4 others of their community and 1 node
// anywhere, plus node 0 as a hub adjacent to hubDeg random nodes and the
// last two nodes isolated.

// Same seed, 1, 2, 4 and 7 workers: bit-identical embeddings, in both
// modes. The graphs are large enough for several chunks, so the workers
// really share the rows, and sampled mode takes the renumbering path
// (its threshold lowered), the pool of non-isolated nodes and the dense
// row that uses every non-neighbour. The test checks that it took them.
//
// The fits use the default smoothed start and the stability stop, checked
// every 5 epochs at 80% overlap here so that it fires within the 40
// epochs (sampled mode samples 1000 of its 4000 nodes): every worker count
// must stop at the same epoch, by that stop.
func TestCNEDeterministicAcrossWorkers(t *testing.T) {
	// At least 4 threads, so that the workers can run at once even where
	// the test runs with fewer (GOMAXPROCS=1).
	prev := runtime.GOMAXPROCS(max(4, runtime.GOMAXPROCS(0)))
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	for _, tc := range []struct {
		mode Mode
		n    int
	}{{ModeExact, 800}, {ModeSampled, 4000}} {
		g := testkit.CommunityGraph(tc.n, tc.n/4, 9)
		p := fitTestPrior(t, g)
		o := Options{Mode: tc.mode, MaxEpochs: 40}.WithDefaults()
		o.tune = tuning{reorderMinBytes: -1, stableEvery: 5, stableOverlap: 0.8}
		chunks := len(cneChunks(g, tc.mode, o.NegRatio)) - 1
		if chunks < 7 {
			t.Fatalf("%v: %d chunks; the test needs at least 7 for 7 workers", tc.mode, chunks)
		}
		if hub := g.Degree(0); tc.mode == ModeSampled && o.NegRatio*hub < g.NumNodes()-3-hub {
			t.Fatalf("hub degree %d does not take the dense-row path", hub)
		}
		var ref *Embedding
		var refStats Stats
		// Which worker takes which chunk is up to the scheduler; a fit in
		// which one worker happened to take every chunk is run again (up to
		// 5 times, each checked like the others), so that the test does not
		// depend on scheduling luck.
		for _, w := range []int{1, 2, 4, 7} {
			used := map[int32]bool{}
			for attempt := 1; ; attempt++ {
				renumbered := false
				o.tune.epochHook = func(f *cneFit, epoch int) {
					if f.workers != w || len(f.ranBy) != chunks {
						t.Fatalf("%v: %d workers over %d chunks, want %d over %d", tc.mode, f.workers, len(f.ranBy), w, chunks)
					}
					for _, r := range f.ranBy {
						used[r] = true
					}
					if f.order != nil && !slices.IsSorted(f.order) {
						renumbered = true
					}
				}
				emb, st, err := Fit(context.Background(), g, p, o, Run{Seed: 42, Workers: w})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%v, %d nodes, %d chunks, %d workers: %d epochs (stability stop %v), %d workers computed chunks, renumbered %v",
					tc.mode, tc.n, chunks, w, st.Epochs, st.Stable, len(used), renumbered)
				if st.Epochs < 10 || !st.Stable {
					t.Fatalf("%v: %d epochs, stability stop %v", tc.mode, st.Epochs, st.Stable)
				}
				if renumbered != (tc.mode == ModeSampled) {
					t.Fatalf("%v: renumbered %v", tc.mode, renumbered)
				}
				if ref == nil {
					ref, refStats = emb, st
				} else {
					if st.Epochs != refStats.Epochs || st.Stable != refStats.Stable {
						t.Fatalf("%v: workers=%d stopped at %d (stable %v), workers=1 at %d (stable %v)", tc.mode, w, st.Epochs, st.Stable, refStats.Epochs, refStats.Stable)
					}
					for k := range emb.X {
						if emb.X[k] != ref.X[k] {
							t.Fatalf("%v: workers=%d differs from workers=1 at %d: %v vs %v", tc.mode, w, k, emb.X[k], ref.X[k])
						}
					}
				}
				if w == 1 || len(used) >= 2 {
					break
				}
				if attempt == 5 {
					t.Errorf("%v: %d workers asked, only %d computed chunks in %d fits", tc.mode, w, len(used), attempt)
					break
				}
			}
		}
	}
}

func TestCNECancel(t *testing.T) {
	g := readTestGraph(t, "netscience")
	p := fitTestPrior(t, g)
	ctx, cancel := context.WithCancel(context.Background())
	epochs := 0
	_, _, err := Fit(ctx, g, p, Options{}, Run{Progress: func(pr Progress) {
		epochs = pr.Epoch
		if pr.Epoch == 3 {
			cancel()
		}
	}})
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if epochs != 3 {
		t.Fatalf("ran %d epochs after cancelling at 3", epochs)
	}
}

func TestCNEOptionsValidate(t *testing.T) {
	if err := (Options{Sigma1: 2, Sigma2: 1}).Validate(); err == nil {
		t.Fatal("sigma2 < sigma1 accepted")
	}
	if err := (Options{}).Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestSubsetOfEveryRowIsTheFullFit checks the subset training (its
// gradient and Adam's moments packed by trained row) against the full
// fit: trained on every row from the same warm start, both take the same
// steps, so the vectors and moments agree bit for bit; trained on some
// rows, the others keep the warm start's vectors and moments.
func TestSubsetOfEveryRowIsTheFullFit(t *testing.T) {
	for _, tc := range []struct {
		mode Mode
		n    int
	}{{ModeExact, 300}, {ModeSampled, 3000}} {
		g := testkit.CommunityGraph(tc.n, tc.n/4, 9)
		p := fitTestPrior(t, g)
		// Fewer epochs than the stopping test needs: both run them all.
		o := Options{Mode: tc.mode, MaxEpochs: 8}
		base, _, err := Fit(context.Background(), g, p, o, Run{Seed: 1, KeepState: true})
		if err != nil {
			t.Fatal(err)
		}
		full, _, err := Fit(context.Background(), g, p, o, Run{Seed: 2, Init: base, KeepState: true})
		if err != nil {
			t.Fatal(err)
		}
		every := make([]int32, tc.n)
		for i := range every {
			every[i] = int32(i)
		}
		sub, _, err := Fit(context.Background(), g, p, o, Run{Seed: 2, Init: base, KeepState: true, Trainable: every})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(full.X, sub.X) || !slices.Equal(full.state.m, sub.state.m) || !slices.Equal(full.state.v, sub.state.v) ||
			full.state.step != sub.state.step {
			t.Fatalf("%v: training every row as a subset differs from the full fit", tc.mode)
		}
		var some []int32 // rows with links (an isolated one never moves)
		for _, i := range []int32{2, 17, 18, int32(tc.n - 2), int32(tc.n - 1)} {
			if g.Degree(int(i)) > 0 {
				some = append(some, i)
			}
		}
		part, _, err := Fit(context.Background(), g, p, o, Run{Seed: 2, Init: base, KeepState: true, Trainable: some})
		if err != nil {
			t.Fatal(err)
		}
		for i := range tc.n {
			r := i * 8
			kept := slices.Equal(part.X[r:r+8], base.X[r:r+8]) && slices.Equal(part.state.m[r:r+8], base.state.m[r:r+8]) &&
				slices.Equal(part.state.v[r:r+8], base.state.v[r:r+8])
			if kept == slices.Contains(some, int32(i)) {
				t.Fatalf("%v: row %d kept its vector and moments: %v, trained: %v", tc.mode, i, kept, !kept)
			}
		}
	}
}
