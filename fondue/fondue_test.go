package fondue

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The Jacobi eigensolver must agree with gonum's on random PSD matrices.
func TestTopEigenvectorMatchesGonum(t *testing.T) {
	r := splitmix{s: 11}
	for trial := 0; trial < 200; trial++ {
		d := 1 + trial%9
		m := 3 + trial%5
		a := make([]float64, d*d)
		for k := 0; k < m; k++ {
			y := make([]float64, d)
			for c := range y {
				y[c] = r.norm()
			}
			for p := 0; p < d; p++ {
				for q := 0; q < d; q++ {
					a[p*d+q] += y[p] * y[q]
				}
			}
		}
		sym := mat.NewSymDense(d, append([]float64(nil), a...))
		var es mat.EigenSym
		if !es.Factorize(sym, true) {
			t.Fatal("gonum failed")
		}
		vals := es.Values(nil)
		var vecs mat.Dense
		es.VectorsTo(&vecs)
		want := vals[d-1]
		v := make([]float64, d)
		got := topEigenvector(a, d, make([]float64, d*d), v)
		if math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("d=%d: eigenvalue %g, gonum %g", d, got, want)
		}
		// Same direction up to sign (when the top eigenvalue is simple).
		if d > 1 && vals[d-1]-vals[d-2] > 1e-6*want {
			c := 0.0
			for k := 0; k < d; k++ {
				c += v[k] * vecs.At(k, d-1)
			}
			if math.Abs(math.Abs(c)-1) > 1e-7 {
				t.Fatalf("d=%d: eigenvector off, |cos| = %g", d, math.Abs(c))
			}
		}
	}
}

// bruteForceBest returns max_b R_i(b) over all 2^m sign vectors (b and -b
// give the same value, so the first sign is fixed).
func bruteForceBest(g *Graph, emb *Embedding, i int) float64 {
	m := g.Degree(i)
	b := make([]int8, m)
	best := 0.0
	for mask := uint64(0); mask < 1<<(m-1); mask++ {
		for k := 0; k < m; k++ {
			b[k] = -1
			if k == 0 || mask>>(k-1)&1 == 1 {
				b[k] = 1
			}
		}
		best = max(best, rayleigh(g, emb, i, b, true))
	}
	return best
}

// The eigenvector sweep plus T random vectors against the optimum over all
// 2^m sign vectors, for every node of degree <= 12 of a real graph embedded
// by CNE. The heuristic can never beat the optimum; it should find it for
// nearly every node and come close everywhere.
func TestFondueHeuristicVersusBruteForce(t *testing.T) {
	// Floors within 0.02 of the measured values on the default embedding
	// (smoothed start, stability stop): netscience finds the optimum on 358
	// of 364 nodes (0.984), worst ratio 0.8318; polbooks on 83 of 85
	// (0.9765), worst ratio 0.8382. (From plain noise with the gradient test
	// alone, before issue 11: 361 of 364, worst 0.8192, and 84 of 85, worst
	// 0.9770; the worst ratio is a single node's.)
	floors := map[string]struct{ optimal, worst float64 }{
		"netscience": {0.975, 0.80},
		"polbooks":   {0.97, 0.81},
	}
	for _, name := range []string{"netscience", "polbooks"} {
		g := readTestGraph(t, name)
		p := fitTestPrior(t, g)
		emb, _, err := FitCNE(context.Background(), g, p, CNEOptions{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		w := newFondueWork(emb.Dim)
		nodes, optimal, optimalEigen, optimalPolished := 0, 0, 0, 0
		worst, worstPolished := 1.0, 1.0
		for i := 0; i < g.NumNodes(); i++ {
			m := g.Degree(i)
			if m == 0 || m > 12 {
				continue
			}
			opt := bruteForceBest(g, emb, i)
			r := splitmix{s: uint64(i)}
			b := make([]int8, m)
			got := fondueNode(g, emb, i, 100, true, false, &r, w, b)
			eigenOnly := fondueNode(g, emb, i, 0, true, false, &r, w, nil)
			polished := fondueNode(g, emb, i, 100, true, true, &r, w, nil)
			if polished < got*(1-1e-12) || polished > opt*(1+1e-12) {
				t.Fatalf("%s node %d: polished %g, unpolished %g, optimum %g", name, i, polished, got, opt)
			}
			if polished >= opt*(1-1e-12) {
				optimalPolished++
			}
			worstPolished = min(worstPolished, polished/opt)
			if got > opt*(1+1e-12) {
				t.Fatalf("%s node %d: heuristic %g above the optimum %g", name, i, got, opt)
			}
			// The returned sign vector must achieve the returned score.
			if rb := rayleigh(g, emb, i, b, true); math.Abs(rb-got) > 1e-9*math.Max(1, got) {
				t.Fatalf("%s node %d: score %g but its sign vector gives %g", name, i, got, rb)
			}
			nodes++
			if got >= opt*(1-1e-12) {
				optimal++
			}
			if eigenOnly >= opt*(1-1e-12) {
				optimalEigen++
			}
			worst = min(worst, got/opt)
		}
		frac := float64(optimal) / float64(nodes)
		t.Logf("%s: %d nodes of degree <= 12; eigen+random finds the optimum on %.1f%% (eigen alone %.1f%%), worst ratio %.4f; with polish %.1f%%, worst %.4f",
			name, nodes, 100*frac, 100*float64(optimalEigen)/float64(nodes), worst, 100*float64(optimalPolished)/float64(nodes), worstPolished)
		if f := floors[name]; frac < f.optimal || worst < f.worst || worstPolished < worst {
			t.Errorf("%s: optimum found on %.2f%% of nodes, worst ratio %.4f (floors %.1f%%, %.2f), with polish %.4f",
				name, 100*frac, worst, 100*f.optimal, f.worst, worstPolished)
		}
	}
}

// Degree-1 nodes score exactly their squared distance to the neighbour;
// isolated nodes get NaN.
func TestFondueSpecialDegrees(t *testing.T) {
	g := NewGraph(4, [][2]int{{0, 1}, {1, 2}})
	emb := randomEmbedding(4, 3, 9)
	s, err := fondueScores(context.Background(), g, emb, signParams{T: 10, Normalize: true, Polish: false, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := sqDist(emb.Row(0), emb.Row(1)); math.Abs(s[0]-want) > 1e-12 {
		t.Fatalf("degree-1 score %g, want %g", s[0], want)
	}
	if !math.IsNaN(s[3]) {
		t.Fatalf("isolated node scored %g", s[3])
	}
}

// Scores, and FondueSplit's sign vectors, do not depend on the worker count.
func TestFondueScoresDeterministic(t *testing.T) {
	g := readTestGraph(t, "netscience")
	emb := randomEmbedding(g.NumNodes(), 8, 1)
	a, _ := fondueScores(context.Background(), g, emb, signParams{T: 50, Normalize: true, Polish: false, Seed: 7, Workers: 1})
	b, _ := fondueScores(context.Background(), g, emb, signParams{T: 50, Normalize: true, Polish: false, Seed: 7, Workers: 4})
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			t.Fatalf("node %d: %v vs %v", i, a[i], b[i])
		}
	}
	for i := 0; i < g.NumNodes(); i += 17 {
		sv := fondueSplit(g, emb, i, signParams{T: 50, Normalize: true, Polish: false, Seed: 7})
		if got := rayleigh(g, emb, i, sv, true); math.Abs(got-a[i]) > 1e-9*a[i] {
			t.Fatalf("node %d: split gives %g, score %g", i, got, a[i])
		}
	}
}

// signedSums8x2AVX2 against signedSum8, bit for bit, for two sign vectors
// over 1 to 200 rows (one to four words, the last one partial), rows with
// zeros, negative zeros and mixed magnitudes among them.
func TestSignedSums8x2AVX2MatchesGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this machine: randomSigns runs signedSum8 alone")
	}
	r := splitmix{s: 12}
	w := newFondueWork(8)
	for m := 1; m <= 200; m++ {
		w.y = make([]float64, m*8)
		for k := range w.y {
			switch k % 11 {
			case 3:
				w.y[k] = 0
			case 7:
				w.y[k] = math.Copysign(0, -1)
			default:
				w.y[k] = r.norm() * math.Pow(10, float64(k%5-2))
			}
		}
		words := (m + 63) >> 6
		a, b := make([]uint64, words), make([]uint64, words)
		for k := range a {
			a[k], b[k] = r.next(), r.next()
		}
		var sums [2][8]float64
		signedSums8x2AVX2(&w.y[0], m, &a[0], &b[0], &sums)
		for v, bits := range [][]uint64{a, b} {
			want := w.signedSum8(m, bits)
			if got := dot(sums[v][:], sums[v][:]); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("m=%d, vector %d: %v, signedSum8 %v", m, v, got, want)
			}
			// the sums themselves, not only their squared norm
			var acc [8]float64
			for k := 0; k < m; k++ {
				s := signOf[bits[k>>6]>>(k&63)&1]
				for c := range acc {
					acc[c] += s * w.y[k*8+c]
				}
			}
			if acc != sums[v] {
				t.Fatalf("m=%d, vector %d: sums %v, want %v", m, v, sums[v], acc)
			}
		}
	}
}
