package score

import (
	"context"
	"math"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
)

// combinedRandomEmbedding returns an N(0,1) embedding of n nodes.
func combinedRandomEmbedding(n, d int, seed uint64) *cne.Embedding {
	r := rng.SplitMix{S: seed}
	x := make([]float64, n*d)
	for k := range x {
		x[k] = r.Norm()
	}
	return &cne.Embedding{Dim: d, X: x}
}

// combinedBrute returns the disconnection of node i's split b by testing
// every cross pair for a link or a common neighbour other than i.
func combinedBrute(g *graph.Graph, i int, b []int8) float64 {
	nb := g.Neighbors(i)
	pairs, unlinked := 0, 0
	for p := range nb {
		for q := range nb {
			if b[p] <= 0 || b[q] > 0 {
				continue
			}
			pairs++
			j, k := int(nb[p]), int(nb[q])
			linked := g.HasEdge(j, k)
			for _, x := range g.Neighbors(j) {
				if int(x) != i && g.HasEdge(int(x), k) {
					linked = true
				}
			}
			if !linked {
				unlinked++
			}
		}
	}
	if pairs == 0 {
		return 0
	}
	return float64(unlinked) / float64(pairs)
}

// Node 0 is two triangles {1,2,3} and {4,5,6} merged, placed apart in the
// embedding so that FONDUE's split separates them. Alone, nothing ties the
// sides: disconnection 1. With the edge 3-4, of the 9 cross pairs 3-4 is
// linked, and 3-5, 3-6 (via 4) and 1-4, 2-4 (via 3) share a neighbour:
// 4 of 9 are strangers.
func TestSplitDisconnectionByHand(t *testing.T) {
	edges := append(testkit.Clique(1, 2, 3), testkit.Clique(4, 5, 6)...)
	for k := 1; k <= 6; k++ {
		edges = append(edges, [2]int{0, k})
	}
	x := []float64{0, 0, -2, 0.1, -2, -0.1, -2.1, 0, 2, 0.1, 2, -0.1, 2.1, 0}
	emb := &cne.Embedding{Dim: 2, X: x}
	for _, c := range []struct {
		name  string
		extra [][2]int
		want  float64
	}{{"separate", nil, 1}, {"bridged", [][2]int{{3, 4}}, 4.0 / 9}} {
		g := testkit.NewGraph(7, append(append([][2]int(nil), edges...), c.extra...))
		s, disc, err := splitDisconnection(context.Background(), g, emb, signParams{T: 10, Normalize: true, Polish: false, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(disc[0]-c.want) > 1e-15 {
			t.Errorf("%s: disconnection %v, want %v (split %v)", c.name, disc[0], c.want, fondueSplit(g, emb, 0, signParams{T: 10, Normalize: true, Polish: false, Seed: 1}))
		}
		if s[0] <= s[1] {
			t.Errorf("%s: FONDUE score of the merged node %v not above a triangle node's %v", c.name, s[0], s[1])
		}
	}
}

// The scores equal FondueScores bit for bit, and the disconnection equals
// the brute force over the split FondueSplit returns, on a real graph with
// a random embedding; the result does not depend on the number of workers.
func TestSplitDisconnectionBruteForce(t *testing.T) {
	g := testkit.ReadGraph(t, "polbooks")
	emb := combinedRandomEmbedding(g.NumNodes(), 4, 3)
	want, err := fondueScores(context.Background(), g, emb, signParams{T: 20, Normalize: true, Polish: false, Seed: 7, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var ref []float64
	for _, w := range []int{1, 3} {
		s, disc, err := splitDisconnection(context.Background(), g, emb, signParams{T: 20, Normalize: true, Polish: false, Seed: 7, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		for i := range s {
			if math.Float64bits(s[i]) != math.Float64bits(want[i]) {
				t.Fatalf("node %d: score %v, FondueScores %v", i, s[i], want[i])
			}
			b := fondueSplit(g, emb, i, signParams{T: 20, Normalize: true, Polish: false, Seed: 7})
			if bf := combinedBrute(g, i, b); math.Abs(disc[i]-bf) > 1e-12 {
				t.Fatalf("node %d: disconnection %v, brute force %v", i, disc[i], bf)
			}
		}
		if ref != nil {
			for i := range disc {
				if disc[i] != ref[i] {
					t.Fatalf("node %d: %v with %d workers, %v with 1", i, disc[i], w, ref[i])
				}
			}
		}
		ref = disc
	}
}

// hubOfTwoSides returns hub 0 with 2h neighbours on two sides of h,
// embedded at +1 and -1: side A is a path 1-2-...-h, side B has no edges,
// and a third of B's nodes are linked to one node of A each.
func hubOfTwoSides(h int) (*graph.Graph, *cne.Embedding) {
	var edges [][2]int
	x := make([]float64, (2*h+1)*2)
	for k := 1; k <= 2*h; k++ {
		edges = append(edges, [2]int{0, k})
		if k <= h {
			x[2*k] = 1
			if k > 1 {
				edges = append(edges, [2]int{k - 1, k})
			}
		} else {
			x[2*k] = -1
			if k%3 == 0 {
				edges = append(edges, [2]int{k, k - h})
			}
		}
	}
	return testkit.NewGraph(2*h+1, edges), &cne.Embedding{Dim: 2, X: x}
}

// Above the budget, a split whose pairs are cheaper to count than to
// sample is counted exactly: hubOfTwoSides with sides of 300 (90,000
// pairs) gets the brute force's share to rounding.
func TestSplitDisconnectionExactAboveBudget(t *testing.T) {
	const h = 300
	g, emb := hubOfTwoSides(h)
	b := fondueSplit(g, emb, 0, signParams{T: 0, Normalize: true, Polish: false, Seed: 1})
	_, disc, err := splitDisconnection(context.Background(), g, emb, signParams{T: 0, Normalize: true, Polish: false, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if exact := combinedBrute(g, 0, b); math.Abs(disc[0]-exact) > 1e-12 || exact == 1 {
		t.Fatalf("disconnection %v, brute force %v", disc[0], exact)
	}
}

// unlinkedPairs against combinedBrute on a hub of 200-odd neighbours split
// at random into sides of 1 to 170 nodes, so that the larger side spans
// up to three chunks of 64, with edges and common neighbours across the
// split (a sparse random graph around the hub), one worker reused
// throughout as in splitDisconnection.
func TestUnlinkedPairsBruteForce(t *testing.T) {
	g := testkit.RandomGraph(260, 0.02, 1, 8)
	nb := g.Neighbors(0)
	if len(nb) < 180 {
		t.Fatalf("hub has %d neighbours", len(nb))
	}
	cw := &crossWork{marks: make([]uint64, g.NumNodes())}
	r := rng.SplitMix{S: 4}
	for _, plus := range []int{1, 2, 30, 63, 64, 65, 100, len(nb) - 64, len(nb) - 1} {
		b := make([]int8, len(nb))
		for k := range b {
			b[k] = -1
		}
		for set := 0; set < plus; {
			if k := r.Intn(uint32(len(nb))); b[k] < 0 {
				b[k] = 1
				set++
			}
		}
		groups := SignGroups(nb, b)
		a, c := groups[0], groups[1]
		want := combinedBrute(g, 0, b) * float64(len(a)*len(c))
		for _, sides := range [][2][]int32{{a, c}, {c, a}} {
			got := cw.unlinkedPairs(g, 0, sides[0], sides[1])
			if float64(got) != math.Round(want) {
				t.Fatalf("%d on one side: %d unlinked pairs, brute force %v", plus, got, want)
			}
		}
		if want == 0 || want == float64(len(a)*len(c)) {
			t.Fatalf("%d on one side: %v of %d pairs unlinked, the test needs both kinds", plus, want, len(a)*len(c))
		}
	}
}

// Above the budget, where counting every pair costs more than sampling,
// the share is estimated from sampled cross pairs: close to the exact
// value and the same with any number of workers.
func TestSplitDisconnectionSampled(t *testing.T) {
	// 9M cross pairs > budget, and counting them takes more steps than
	// sampling.
	const h = 3000
	g, emb := hubOfTwoSides(h)
	b := fondueSplit(g, emb, 0, signParams{T: 0, Normalize: true, Polish: false, Seed: 1})
	exact := combinedBrute(g, 0, b)
	sides := SignGroups(g.Neighbors(0), b)
	if len(sides[0])*len(sides[1]) <= disconnectionBudget || exactIsCheaper(g, sides[0], sides[1]) {
		t.Fatalf("split %d / %d: the test needs the sampled path", len(sides[0]), len(sides[1]))
	}
	var ref float64
	for _, w := range []int{1, 2} {
		_, disc, err := splitDisconnection(context.Background(), g, emb, signParams{T: 0, Normalize: true, Polish: false, Seed: 1, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(disc[0]-exact) > 0.02 {
			t.Fatalf("sampled disconnection %v, exact %v", disc[0], exact)
		}
		if w > 1 && disc[0] != ref {
			t.Fatalf("%v with %d workers, %v with 1", disc[0], w, ref)
		}
		ref = disc[0]
	}
	if exact < 0.9 || exact == 1 {
		t.Fatalf("test graph: exact disconnection %v, want a value just below 1", exact)
	}
}

func TestCombineRanksByHand(t *testing.T) {
	a := []float64{3, 1, 2, math.NaN(), 2}
	b := []float64{0, 5, 5, 1, 9}
	// Scored: entries 0, 1, 2, 4 (3 is NaN in a). Ranks in a: 1 → 1,
	// 2 and 2 → 2.5 each, 3 → 4. In b over the same entries: 0 → 1,
	// 5 and 5 → 2.5, 9 → 4. Mid-rank shares (r − ½)/4: ranks 1, 2.5, 4
	// give 1/8, 1/2, 7/8, whose normal quantiles are −q, 0, q with
	// q = Φ⁻¹(7/8) = 1.1503493803760079 (tables).
	const q = 1.1503493803760079
	want := []float64{(q - q) / 2, (-q + 0) / 2, (0 + 0) / 2, math.NaN(), (0 + q) / 2}
	got := combineRanks(a, b, 1)
	for k := range want {
		if !(math.Abs(got[k]-want[k]) < 1e-14 || math.IsNaN(got[k]) && math.IsNaN(want[k])) {
			t.Errorf("entry %d: %v, want %v", k, got[k], want[k])
		}
	}
}

// normalQuantile against the normal table, and symmetric about ½.
func TestNormalQuantileByTable(t *testing.T) {
	for _, c := range []struct{ p, z float64 }{
		{0.5, 0}, {0.975, 1.959963984540054}, {0.8413447460685429, 1}, {0.001, -3.090232306167813},
		{5e-7, -4.891638475699412},
	} {
		if got := normalQuantile(c.p); math.Abs(got-c.z) > 1e-9 {
			t.Errorf("Φ⁻¹(%v) = %v, want %v", c.p, got, c.z)
		}
		if got, neg := normalQuantile(1-c.p), -normalQuantile(c.p); math.Abs(got-neg) > 1e-9 {
			t.Errorf("Φ⁻¹(1 − %v) = %v, want %v", c.p, got, neg)
		}
	}
}

// The weighted combination by hand: quantiles as in
// TestCombineRanksByHand, the second list weighted 3.
func TestCombineRanksWeightedByHand(t *testing.T) {
	a := []float64{3, 1, 2, math.NaN(), 2}
	b := []float64{0, 5, 5, 1, 9}
	const q = 1.1503493803760079 // Φ⁻¹(7/8)
	za := []float64{q, -q, 0, 0, 0}
	zb := []float64{-q, 0, 0, 0, q}
	got := combineRanks(a, b, 3)
	for k := range a {
		want := (za[k] + 3*zb[k]) / 4
		if k == 3 {
			want = math.NaN()
		}
		if !(math.Abs(got[k]-want) < 1e-14 || math.IsNaN(got[k]) && math.IsNaN(want)) {
			t.Errorf("entry %d: %v, want %v", k, got[k], want)
		}
	}
}

// disconnectionWeight by hand: the median is taken over the nodes with
// two or more neighbours only, the lower one for an even count.
func TestDisconnectionWeightByHand(t *testing.T) {
	// Degrees: node 0 has 3 neighbours, nodes 2 and 4 have 2, nodes 1, 3
	// and 5 have 1.
	g := testkit.NewGraph(6, [][2]int{{0, 1}, {0, 2}, {0, 4}, {2, 3}, {4, 5}})
	// Nodes with two or more neighbours: 0, 2, 4.
	disc := []float64{0.2, 0.99, 0.9, 0.99, 0, 0.99}
	if w := disconnectionWeight(g, disc); math.Abs(w-0.8) > 1e-15 {
		t.Errorf("odd count: weight %v, want 0.8 (1 - median of .2, .9, 0)", w)
	}
	disc[4] = math.NaN() // left out: .2 and .9 remain, lower median .2
	if w := disconnectionWeight(g, disc); math.Abs(w-0.8) > 1e-15 {
		t.Errorf("even count: weight %v, want 0.8", w)
	}
	if w := disconnectionWeight(testkit.NewGraph(3, [][2]int{{0, 1}}), []float64{0, 0, math.NaN()}); w != 1 {
		t.Errorf("no node of degree 2: weight %v, want 1", w)
	}
}

// graphEvidence by hand: the mean of the disconnection and the
// fragmentation 1 − 1/eff.
func TestGraphEvidenceByHand(t *testing.T) {
	disc := []float64{0, 0.5, 1, math.NaN(), 0.2}
	eff := []float64{1, 2, 4, 1, math.NaN()}
	want := []float64{0, 0.5, 0.875, math.NaN(), math.NaN()}
	for k, v := range graphEvidence(disc, eff) {
		if !(v == want[k] || math.IsNaN(v) && math.IsNaN(want[k])) {
			t.Errorf("entry %d: %v, want %v", k, v, want[k])
		}
	}
}

// binnedQuantiles ranks each node among the nodes of its degree bin only.
func TestBinnedQuantilesByHand(t *testing.T) {
	// The path 0-1-2-3-4: degrees 1, 2, 2, 2, 1; bins 0 {0, 4} and 1 {1, 2, 3}.
	g, err := graph.NewGraph(5, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	ok := []bool{true, true, true, true, true}
	// Bin 0: 5 < 7, ranks 1, 2 of 2. Bin 1: 1 < 2 < 3, ranks 1, 3, 2 of 3.
	got := binnedQuantiles(g, []float64{5, 1, 3, 2, 7}, ok)
	want := []float64{normalQuantile(0.5 / 2), normalQuantile(0.5 / 3), normalQuantile(2.5 / 3), normalQuantile(1.5 / 3), normalQuantile(1.5 / 2)}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-12 {
			t.Errorf("node %d: %v, want %v", k, got[k], want[k])
		}
	}
	// Ties share their mean rank; a node left out is in no bin: node 4
	// alone in bin 0 sits at the median.
	got = binnedQuantiles(g, []float64{0, 4, 9, 4, 1}, []bool{false, true, true, true, true})
	want = []float64{0, normalQuantile(1 / 3.0), normalQuantile(2.5 / 3), normalQuantile(1 / 3.0), 0}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-12 {
			t.Errorf("ties, node %d: %v, want %v", k, got[k], want[k])
		}
	}
}

// Spearman's correlation of two rankings, by hand, over the entries kept.
func TestRankCorrelationByHand(t *testing.T) {
	// Deviations from 2.5: (-1.5, -.5, .5, 1.5) and (-1.5, .5, -.5, 1.5):
	// 4 over sqrt(5 * 5).
	ok := []bool{true, true, true, true, false}
	if got := rankCorrelation([]float64{1, 2, 3, 4, 9}, []float64{1, 3, 2, 4, -9}, ok); math.Abs(got-0.8) > 1e-12 {
		t.Errorf("ρ = %v, want 0.8", got)
	}
	if got := rankCorrelation([]float64{1, 1, 1, 1, 0}, []float64{1, 3, 2, 4, 0}, ok); !math.IsNaN(got) {
		t.Errorf("no spread: %v, want NaN", got)
	}
	// FONDUE follows degree exactly, the evidence against it: full
	// conditioning; both follow it alike: none; no spread: none.
	d := []float64{1, 2, 3, 4, 0}
	if got := degreeConditioning(d, []float64{4, 3, 2, 1, 0}, d, ok, 4); got != 1 {
		t.Errorf("FONDUE with degree, evidence against: %v, want 1", got)
	}
	if got := degreeConditioning(d, d, d, ok, 4); got != 0 {
		t.Errorf("both with degree: %v, want 0", got)
	}
	if got := degreeConditioning(d, d, []float64{1, 1, 1, 1, 1}, ok, 4); got != 0 {
		t.Errorf("one degree: %v, want 0", got)
	}
	// A gap of .8 (ρ .8 against 0) over 4 entries, less its noise 1/√4.
	if got := degreeConditioning([]float64{1, 3, 2, 4, 0}, []float64{3, 1, 4, 2, 0}, d, ok, 4); math.Abs(got-0.3) > 1e-12 {
		t.Errorf("gap .8 over 4 nodes: %v, want .3", got)
	}
}

// combineByDegree reads FONDUE and the evidence within the degree bins
// when FONDUE's score follows degree and the evidence does not, and is
// combineRanks when the evidence follows degree as much as FONDUE.
func TestCombineByDegreeByHand(t *testing.T) {
	// The path 0-1-2-3-4: degrees 1, 2, 2, 2, 1; bins 0 {0, 4} and 1 {1, 2, 3}.
	g, err := graph.NewGraph(5, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	// FONDUE equals the degree (ρ 1), the evidence is highest at the ends
	// (ρ < 0): a = 1. Within each bin FONDUE ties (quantile 0); the
	// evidence of bin 1 (0, .5, 0) has ranks 1.5, 3, 1.5 of 3; degree 1
	// has rank 1.5 of 5, degree 2 rank 4.
	fs := []float64{1, 2, 2, 2, 1}
	ev := []float64{1, 0, 0.5, 0, 1}
	got := combineByDegree(g, fs, ev, 1)
	zd1, zd2 := normalQuantile(1.0/5), normalQuantile(3.5/5)
	den := 2 + degreeWeight
	want := []float64{
		degreeWeight * zd1 / den,
		(normalQuantile(1.0/3) + degreeWeight*zd2) / den,
		(normalQuantile(2.5/3) + degreeWeight*zd2) / den,
		(normalQuantile(1.0/3) + degreeWeight*zd2) / den,
		degreeWeight * zd1 / den,
	}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-12 {
			t.Errorf("a = 1, node %d: %v, want %v", k, got[k], want[k])
		}
	}
	// The evidence follows degree exactly as FONDUE does: a = 0.
	fs = []float64{3, 5, 6, 4, math.NaN()}
	ev = []float64{0.1, 0.3, 0.4, 0.2, 0.5}
	got, want = combineByDegree(g, fs, ev, 2), combineRanks(fs, ev, 2)
	for k := range want {
		if !(got[k] == want[k] || math.IsNaN(got[k]) && math.IsNaN(want[k])) {
			t.Errorf("a = 0, node %d: %v, want combineRanks' %v", k, got[k], want[k])
		}
	}
}
