package eval

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
)

func metricClose(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

// auc, roc, ndcg and ari are the metrics for inputs that must be valid.
func auc(t *testing.T, s []float64, l []bool, ties TieMode) float64 {
	t.Helper()
	v, err := AUC(s, l, ties)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func roc(t *testing.T, s []float64, l []bool) (fpr, tpr []float64) {
	t.Helper()
	fpr, tpr, err := ROC(s, l)
	if err != nil {
		t.Fatal(err)
	}
	return fpr, tpr
}

func ndcg(t *testing.T, s []float64, l []bool) float64 {
	t.Helper()
	v, err := NDCG(s, l)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func ari(t *testing.T, a, b []int) float64 {
	t.Helper()
	v, err := ARI(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Scores and labels of different lengths, labelings of different lengths
// and an unknown tie mode are an *OptionsError, not a panic.
func TestMetricsRefuseBadInput(t *testing.T) {
	s, l := []float64{1, 2, 3}, []bool{true, false}
	check := func(what string, err error, msg string) {
		t.Helper()
		var oe *fondue.OptionsError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), msg) {
			t.Fatalf("%s: err = %v, want an *OptionsError saying %q", what, err, msg)
		}
	}
	_, err := AUC(s, l, TiesAverage)
	check("AUC", err, "3 scores but 2 labels")
	_, err = AUC(s, append(l, true), TieMode(7))
	check("AUC tie mode", err, "invalid tie mode 7")
	_, _, err = ROC(s, l)
	check("ROC", err, "3 scores but 2 labels")
	_, err = NDCG(s[:1], l)
	check("NDCG", err, "1 scores but 2 labels")
	_, err = ARI([]int{0, 1}, []int{0})
	check("ARI", err, "labelings of length 2 and 1")
}

func TestAUCByHand(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name      string
		scores    []float64
		labels    []bool
		avg, loss float64
	}{
		// Positives .9 and .8, negatives .8 and .1. Pairs (pos, neg):
		// (.9,.8) win, (.9,.1) win, (.8,.8) tie, (.8,.1) win.
		// Average ties: (3 + ½)/4 = .875. Ties as losses: 3/4.
		{"one tie", []float64{.9, .8, .8, .1}, []bool{true, false, true, false}, .875, .75},
		{"perfect", []float64{4, 3, 2, 1}, []bool{true, true, false, false}, 1, 1},
		{"inverted", []float64{4, 3, 2, 1}, []bool{false, false, true, true}, 0, 0},
		// Every pair tied: ½ on average, 0 as losses.
		{"constant", []float64{2, 2, 2, 2, 2}, []bool{true, false, false, true, false}, .5, 0},
		// The NaN-scored positive is dropped: one positive (.5) against
		// negatives .7, .3, .5: win, tie, loss -> (1+½)/3 and 1/3.
		{"NaN dropped", []float64{nan, .7, .5, .3, .5}, []bool{true, false, true, false, false}, 1.5 / 3, 1.0 / 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := auc(t, c.scores, c.labels, TiesAverage); !metricClose(got, c.avg) {
				t.Errorf("average ties: got AUC %v, want %v", got, c.avg)
			}
			if got := auc(t, c.scores, c.labels, TiesAsLoss); !metricClose(got, c.loss) {
				t.Errorf("ties as losses: got AUC %v, want %v", got, c.loss)
			}
		})
	}
	for _, c := range []struct {
		scores []float64
		labels []bool
	}{
		{[]float64{1, 2}, []bool{true, true}},
		{[]float64{1, 2}, []bool{false, false}},
		{[]float64{nan, 2}, []bool{true, false}},
		{nil, nil},
	} {
		t.Run(fmt.Sprintf("undefined %v %v", c.scores, c.labels), func(t *testing.T) {
			if got := auc(t, c.scores, c.labels, TiesAverage); !math.IsNaN(got) {
				t.Errorf("got AUC %v, want NaN", got)
			}
		})
	}
}

// metricBruteAUC counts every positive–negative pair.
func metricBruteAUC(s []float64, l []bool, ties TieMode) float64 {
	wins, pairs := 0.0, 0.0
	for i := range s {
		for j := range s {
			if !l[i] || l[j] || math.IsNaN(s[i]) || math.IsNaN(s[j]) {
				continue
			}
			pairs++
			switch {
			case s[i] > s[j]:
				wins++
			case s[i] == s[j] && ties == TiesAverage:
				wins += .5
			}
		}
	}
	return wins / pairs
}

func metricRandomData(r *rand.Rand, n, levels int) ([]float64, []bool) {
	s := make([]float64, n)
	l := make([]bool, n)
	for i := range s {
		l[i] = r.IntN(4) == 0
		s[i] = float64(r.IntN(levels))
		if l[i] {
			s[i] += float64(r.IntN(3)) // positives score a bit higher
		}
		if r.IntN(20) == 0 {
			s[i] = math.NaN()
		}
	}
	l[0], l[1] = true, false
	s[0], s[1] = 1, 1
	return s, l
}

func TestAUCMatchesPairCounting(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		s, l := metricRandomData(r, 2+r.IntN(60), 1+r.IntN(8))
		for _, ties := range []TieMode{TiesAverage, TiesAsLoss} {
			if got, want := auc(t, s, l, ties), metricBruteAUC(s, l, ties); !metricClose(got, want) {
				t.Fatalf("trial %d %v: AUC %v, pair count %v", trial, ties, got, want)
			}
		}
	}
}

func TestROCByHand(t *testing.T) {
	// Descending: .9 (pos) -> tp 1/2; block .8 (one pos, one neg) -> tp 1,
	// fp 1/2 in one step; .1 (neg) -> fp 1.
	fpr, tpr := roc(t, []float64{.9, .8, .8, .1}, []bool{true, false, true, false})
	wantF, wantT := []float64{0, 0, .5, 1}, []float64{0, .5, 1, 1}
	if len(fpr) != len(wantF) || len(tpr) != len(wantT) {
		t.Fatalf("ROC = %v %v, want %v %v", fpr, tpr, wantF, wantT)
	}
	for k := range wantF {
		if fpr[k] != wantF[k] || tpr[k] != wantT[k] {
			t.Fatalf("ROC = %v %v, want %v %v", fpr, tpr, wantF, wantT)
		}
	}
	if f, tp := roc(t, []float64{1, 2}, []bool{true, true}); f != nil || tp != nil {
		t.Fatalf("one class: ROC = %v %v, want nil", f, tp)
	}
}

func TestROCAreaIsAverageTieAUC(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 100; trial++ {
		s, l := metricRandomData(r, 2+r.IntN(80), 1+r.IntN(10))
		fpr, tpr := roc(t, s, l)
		area := 0.0
		for k := 1; k < len(fpr); k++ {
			area += (fpr[k] - fpr[k-1]) * (tpr[k] + tpr[k-1]) / 2
		}
		if fpr[len(fpr)-1] != 1 || tpr[len(tpr)-1] != 1 {
			t.Fatalf("trial %d: curve ends at (%v,%v)", trial, fpr[len(fpr)-1], tpr[len(tpr)-1])
		}
		if want := auc(t, s, l, TiesAverage); !metricClose(area, want) {
			t.Fatalf("trial %d: trapezoid area %v, AUC %v", trial, area, want)
		}
	}
}

func TestNDCGByHand(t *testing.T) {
	// Ranks: 1 = .9 (pos, gain 1, discount 1/log2 2 = 1); 2-3 = the .8 block
	// with one positive in two places: gain ½ at each, discounts 1/log2 3
	// and 1/log2 4 = ½; 4 = .1 (neg).
	// DCG = 1 + ½(1/log2 3 + ½) = 1.5654648767857287.
	// Ideal: two positives first: 1 + 1/log2 3 = 1.6309297535714575.
	// NDCG = 0.9598603945740939.
	s := []float64{.9, .8, .8, .1}
	l := []bool{true, false, true, false}
	if got := ndcg(t, s, l); !metricClose(got, 0.9598603945740939) {
		t.Fatalf("NDCG = %v, want 0.9598603945740939", got)
	}
	// The same data in another order gives the same value.
	if got := ndcg(t, []float64{.8, .1, .9, .8}, []bool{true, false, true, false}); !metricClose(got, 0.9598603945740939) {
		t.Fatalf("permuted NDCG = %v", got)
	}
	if got := ndcg(t, []float64{.8, .1, .9, .8}, []bool{false, false, true, true}); !metricClose(got, 0.9598603945740939) {
		t.Fatalf("NDCG with the tied pair's labels swapped = %v", got)
	}
	if got := ndcg(t, []float64{3, 2, 1}, []bool{true, false, false}); got != 1 {
		t.Fatalf("perfect NDCG = %v", got)
	}
	// One positive ranked last of 3: 1/log2 4 over 1 = ½.
	if got := ndcg(t, []float64{3, 2, 1}, []bool{false, false, true}); !metricClose(got, .5) {
		t.Fatalf("worst NDCG = %v, want .5", got)
	}
	// A constant score spreads the 1 positive over 3 places:
	// (1/3)(1 + 1/log2 3 + ½) over 1.
	want := (1 + 1/math.Log2(3) + .5) / 3
	if got := ndcg(t, []float64{7, 7, 7}, []bool{false, true, false}); !metricClose(got, want) {
		t.Fatalf("constant NDCG = %v, want %v", got, want)
	}
	if got := ndcg(t, []float64{1, 2}, []bool{false, false}); !math.IsNaN(got) {
		t.Fatalf("NDCG without positives = %v, want NaN", got)
	}
}

func TestARIKnownValues(t *testing.T) {
	cases := []struct {
		a, b []int
		want float64
	}{
		// sklearn outputs.
		{[]int{0, 0, 1, 1}, []int{0, 0, 1, 2}, 0.5714285714285715},
		{[]int{0, 0, 1, 1}, []int{1, 1, 0, 0}, 1},
		{[]int{0, 0, 0, 0}, []int{0, 1, 2, 3}, 0},
		// By hand: contingency [[2,1,0],[0,1,2]]. Σ C(n_ij,2) = 1+1 = 2,
		// Σ C(a_i,2) = 3+3 = 6, Σ C(b_j,2) = 1+1+1 = 3, C(6,2) = 15.
		// Expected 6·3/15 = 1.2, max (6+3)/2 = 4.5: (2−1.2)/(4.5−1.2) = 8/33.
		{[]int{0, 0, 0, 1, 1, 1}, []int{0, 0, 1, 1, 2, 2}, 8.0 / 33},
		// Crossed halves: Σ C(n_ij,2) = 0, Σ C(a_i,2) = Σ C(b_j,2) = 2,
		// C(4,2) = 6: (0 − 4/6)/(2 − 4/6) = −½.
		{[]int{0, 0, 1, 1}, []int{0, 1, 0, 1}, -0.5},
		// Special cases: both one cluster, both all singletons, n ≤ 1.
		{[]int{3, 3, 3}, []int{-1, -1, -1}, 1},
		{[]int{0, 1, 2}, []int{5, 7, 9}, 1},
		{[]int{4}, []int{9}, 1},
		{nil, nil, 1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v %v", c.a, c.b), func(t *testing.T) {
			if got := ari(t, c.a, c.b); !metricClose(got, c.want) {
				t.Errorf("got ARI %v, want %v", got, c.want)
			}
			if got := ari(t, c.b, c.a); !metricClose(got, c.want) {
				t.Errorf("swapped: got ARI %v, want %v (symmetry)", got, c.want)
			}
		})
	}
}

// metricExactARI is the textbook (Hubert–Arabie) formula in exact rational
// arithmetic. It returns nil where it is 0/0, which happens exactly in
// sklearn's special cases (identical partitions with no pair of each kind).
func metricExactARI(a, b []int) *big.Rat {
	comb2 := func(x int64) *big.Rat { return new(big.Rat).SetInt64(x * (x - 1) / 2) }
	cells, rows, cols := map[[2]int]int64{}, map[int]int64{}, map[int]int64{}
	for k := range a {
		cells[[2]int{a[k], b[k]}]++
		rows[a[k]]++
		cols[b[k]]++
	}
	sum := func(m map[int]int64) *big.Rat {
		s := new(big.Rat)
		for _, c := range m {
			s.Add(s, comb2(c))
		}
		return s
	}
	index := new(big.Rat)
	for _, c := range cells {
		index.Add(index, comb2(c))
	}
	sa, sb := sum(rows), sum(cols)
	expected := new(big.Rat).Mul(sa, sb)
	expected.Quo(expected, comb2(int64(len(a))))
	maxIndex := new(big.Rat).Add(sa, sb)
	maxIndex.Quo(maxIndex, big.NewRat(2, 1))
	num := new(big.Rat).Sub(index, expected)
	den := new(big.Rat).Sub(maxIndex, expected)
	if den.Sign() == 0 {
		return nil
	}
	return num.Quo(num, den)
}

func TestARIMatchesExactFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for trial := 0; trial < 300; trial++ {
		n := 2 + r.IntN(30)
		ka, kb := 1+r.IntN(5), 2+r.IntN(5)
		a, b := make([]int, n), make([]int, n)
		for i := range a {
			a[i] = r.IntN(ka)
			b[i] = a[i]
			if r.IntN(3) == 0 {
				b[i] = r.IntN(kb) - 2
			}
		}
		want := 1.0
		if x := metricExactARI(a, b); x != nil {
			want, _ = x.Float64()
		}
		if got := ari(t, a, b); !metricClose(got, want) {
			t.Fatalf("ARI(%v, %v) = %v, exact %v", a, b, got, want)
		}
	}
	// Large n: the pair-count products exceed int64 (tp·tn ≈ 10^25).
	n := 3_000_000
	a, b := make([]int, n), make([]int, n)
	for i := range a {
		a[i] = i % 7
		b[i] = (i / 3) % 5
		if i%11 == 0 {
			b[i] = a[i]
		}
	}
	want, _ := metricExactARI(a, b).Float64()
	if got := ari(t, a, b); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) || math.IsNaN(got) {
		t.Fatalf("large ARI = %v, exact %v", got, want)
	}
}
