package cne

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/quotient"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
)

// The smoothed start against a dense computation by hand on a 30-node graph
// with an isolated node: 10 lazy walk steps with the dense matrix
// (I + D^-1 A)/2, the degree-weighted mean removed, modified Gram-Schmidt
// under <u,v>_D column by column, and columns scaled to degree-weighted
// mean square 0.75^2. Then the properties themselves.
func TestSmoothedStartMatchesDense(t *testing.T) {
	const n, d = 30, 4
	r := rng.SplitMix{S: 5}
	var edges [][2]int
	for i := 0; i < n-1; i++ { // node n-1 stays isolated
		for j := i + 1; j < n-1; j++ {
			if r.Float64() < 0.15 || j == i+1 {
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	g := testkit.NewGraph(n, edges)
	X := make([]float64, n*d)
	for k := range X {
		X[k] = r.Norm()
	}
	noise := slices.Clone(X)

	// Dense reference.
	A := make([][]float64, n)
	deg := make([]float64, n)
	for i := range A {
		A[i] = make([]float64, n)
	}
	for _, e := range edges {
		A[e[0]][e[1]], A[e[1]][e[0]] = 1, 1
	}
	vol := 0.0
	for i := range A {
		for j := range A[i] {
			deg[i] += A[i][j]
		}
		vol += deg[i]
	}
	col := make([][]float64, d) // columns
	for c := range col {
		col[c] = make([]float64, n)
		for i := 0; i < n; i++ {
			col[c][i] = noise[i*d+c]
		}
		for step := 0; step < 10; step++ {
			next := make([]float64, n)
			for i := 0; i < n; i++ {
				if deg[i] == 0 {
					next[i] = col[c][i]
					continue
				}
				s := 0.0
				for j := 0; j < n; j++ {
					s += A[i][j] * col[c][j]
				}
				next[i] = (col[c][i] + s/deg[i]) / 2
			}
			col[c] = next
		}
	}
	dotD := func(u, v []float64) float64 {
		s := 0.0
		for i := range u {
			s += deg[i] * u[i] * v[i]
		}
		return s
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	for c := range col {
		mu := dotD(col[c], ones) / vol
		for i := range col[c] {
			if deg[i] > 0 {
				col[c][i] -= mu
			}
		}
	}
	for c := range col {
		for p := 0; p < c; p++ {
			a := dotD(col[c], col[p]) / dotD(col[p], col[p])
			for i := range col[c] {
				if deg[i] > 0 {
					col[c][i] -= a * col[p][i]
				}
			}
		}
		s := 0.75 / math.Sqrt(dotD(col[c], col[c])/vol)
		for i := range col[c] {
			if deg[i] > 0 {
				col[c][i] *= s
			}
		}
	}

	tmp := make([]float64, n*d)
	ok, err := smoothedStart(context.Background(), g, X, tmp, d, 3)
	if err != nil || !ok {
		t.Fatalf("smoothedStart: %v %v", ok, err)
	}
	for _, v := range tmp {
		if v != 0 {
			t.Fatal("scratch not cleared")
		}
	}
	for i := 0; i < n; i++ {
		for c := 0; c < d; c++ {
			if got, want := X[i*d+c], col[c][i]; math.Abs(got-want) > 1e-9 {
				t.Fatalf("node %d column %d: %g, dense %g", i, c, got, want)
			}
		}
	}
	for c := 0; c < d; c++ {
		if X[(n-1)*d+c] != noise[(n-1)*d+c] {
			t.Fatalf("isolated node moved")
		}
	}
	// Properties: mean removed, D-orthogonal, scale 0.75.
	got := make([][]float64, d)
	for c := range got {
		got[c] = make([]float64, n)
		for i := 0; i < n; i++ {
			if deg[i] > 0 {
				got[c][i] = X[i*d+c]
			}
		}
	}
	for p := 0; p < d; p++ {
		if m := dotD(got[p], ones) / vol; math.Abs(m) > 1e-12 {
			t.Errorf("column %d: weighted mean %g", p, m)
		}
		for q := 0; q < d; q++ {
			want := 0.0
			if p == q {
				want = 0.75 * 0.75
			}
			if g := dotD(got[p], got[q]) / vol; math.Abs(g-want) > 1e-12 {
				t.Errorf("<x%d, x%d>_D / vol = %g, want %g", p, q, g, want)
			}
		}
	}
}

// Graphs with at most d nodes with neighbours keep the noise.
func TestSmoothedStartTooSmall(t *testing.T) {
	g := testkit.NewGraph(5, [][2]int{{0, 1}, {1, 2}, {2, 0}, {2, 3}})
	X := make([]float64, 5*8)
	ok, err := smoothedStart(context.Background(), g, X, make([]float64, len(X)), 8, 1)
	if err != nil || ok {
		t.Fatalf("ok %v err %v, want false", ok, err)
	}
	p := fitTestPrior(t, g)
	noise, _, _ := Fit(context.Background(), g, p, Options{MaxEpochs: 1, LearningRate: 1e-12, NoiseStart: true}, Run{Seed: 1})
	def, _, _ := Fit(context.Background(), g, p, Options{MaxEpochs: 1, LearningRate: 1e-12}, Run{Seed: 1})
	if !slices.Equal(noise.X, def.X) {
		t.Fatal("a 4-node graph did not keep its noise start")
	}
}

// The smoothing alone is bit-identical for 1, 2, 4 and 7 workers on a
// graph of many chunks.
func TestSmoothedStartDeterministic(t *testing.T) {
	g := testkit.CommunityGraph(20000, 100, 3)
	const d = 8
	bounds := parallel.RowChunks(g.NumNodes(), smoothChunkCost, func(i int) float64 { return float64(g.Degree(i) + 4) })
	if len(bounds)-1 < 7 {
		t.Fatalf("%d chunks", len(bounds)-1)
	}
	var ref []float64
	for _, w := range []int{1, 2, 4, 7} {
		r := rng.SplitMix{S: 9}
		X := make([]float64, g.NumNodes()*d)
		for k := range X {
			X[k] = r.Norm()
		}
		if ok, err := smoothedStart(context.Background(), g, X, make([]float64, len(X)), d, w); err != nil || !ok {
			t.Fatal(ok, err)
		}
		if ref == nil {
			ref = X
			continue
		}
		for k := range X {
			if X[k] != ref[k] {
				t.Fatalf("workers=%d differs at %d", w, k)
			}
		}
	}
}

// The stop rule on constructed score sequences: 100 nodes, top 10.
func TestStabilityStopRule(t *testing.T) {
	s := &stabilityStop{score: make([]float64, 100), order: make([]int32, 100)}
	set := func(top []int) {
		for k := range s.score {
			s.score[k] = float64(k % 7) // ties below the top, broken by index
		}
		for r, k := range top {
			s.score[k] = 100 - float64(r)
		}
	}
	steps := []struct {
		top  []int
		want bool
	}{
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, false}, // first check: nothing to compare
		{[]int{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, true},  // same set, new order
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 50}, false}, // 9 of 10 kept: 90% < 95%
		{[]int{50, 1, 2, 3, 4, 5, 6, 7, 8, 9}, true},  // same again
		{[]int{11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, false},
	}
	for k, st := range steps {
		set(st.top)
		if got := s.observe(); got != st.want {
			t.Fatalf("step %d: stable %v, want %v", k, got, st.want)
		}
	}
	// Below 10 nodes there is no top set and the rule never fires.
	small := &stabilityStop{score: make([]float64, 9), order: make([]int32, 9)}
	for k := 0; k < 3; k++ {
		if small.observe() {
			t.Fatal("9 nodes: stop fired")
		}
	}
}

// The sample: every live node of a small graph; stableSample evenly
// spaced live nodes of a large one.
func TestStabilityStopSample(t *testing.T) {
	g := testkit.CommunityGraph(3000, 30, 4)
	s := newStabilityStop(g, 8, tuning{stableSample: 5000})
	live := len(s.sample)
	if live != g.NumNodes()-len(g.Isolated()) || !slices.IsSorted(s.sample) {
		t.Fatalf("sample of %d", live)
	}
	s = newStabilityStop(g, 8, tuning{stableSample: 500})
	if len(s.sample) != 500 || !slices.IsSorted(s.sample) {
		t.Fatalf("sample of %d", len(s.sample))
	}
	for k, i := range s.sample {
		if g.Degree(int(i)) == 0 || (k > 0 && i == s.sample[k-1]) {
			t.Fatalf("sample %d: node %d", k, i)
		}
	}
	if last := s.sample[499]; int(last) < g.NumNodes()*9/10 {
		t.Fatalf("sample ends at %d of %d: not spread", last, g.NumNodes())
	}
}

// spread estimates lambda_max/m of the scatter matrix from below (power
// iteration; within 1% on most nodes), and m times it bounds the eigen sweep's
// normalised quotient, which is at most lambda_max.
func TestStabilitySpread(t *testing.T) {
	g := readTestGraph(t, "netscience")
	emb := randomEmbedding(g.NumNodes(), 8, 3)
	s := newStabilityStop(g, 8, tuning{})
	w := quotient.New(8)
	var ratios []float64
	for i := 0; i < g.NumNodes(); i++ {
		m := float64(g.Degree(i))
		if m == 0 {
			continue
		}
		sp := s.spread(g, emb, i)
		sweep := quotient.Node(g, emb.X, i, 0, true, false, nil, w, nil)
		w.Differences(emb.X, i, g.Neighbors(i))
		lam := quotient.TopEigenvector(w.Scatter(), 8, make([]float64, 64), make([]float64, 8))
		if sp > lam/m*(1+1e-9) || sp < 0.5*lam/m || sweep > lam*(1+1e-9) {
			t.Fatalf("node %d: spread %g, sweep %g, lambda_max %g, degree %g", i, sp, sweep, lam, m)
		}
		ratios = append(ratios, sp/(lam/m))
	}
	slices.Sort(ratios)
	t.Logf("spread / (lambda_max/m): min %.3f, median %.4f", ratios[0], ratios[len(ratios)/2])
	if ratios[len(ratios)/2] < 0.99 {
		t.Errorf("median ratio %.4f", ratios[len(ratios)/2])
	}
}
