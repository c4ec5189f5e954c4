package dedup

import (
	"math"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

func rngFor(s uint64) rng.SplitMix { return rng.SplitMix{S: rng.StreamSeed(s, 1, 2, 3)} }

// objective is the penalised loss fitLogit minimises, at (b, w) on the
// standardised features of l.
func objective(l *logit, x [][]float64, y []float64, b float64, w []float64) float64 {
	s := 0.0
	for r, row := range x {
		eta := b
		for i, v := range row {
			eta += w[i] * (v - l.mean[i]) / l.sd[i]
		}
		s += softplus(eta) - y[r]*eta
	}
	for _, v := range w {
		s += lambda / 2 * v * v
	}
	return s
}

func TestFitLogitFiniteDifference(t *testing.T) {
	r := rngFor(4)
	var x [][]float64
	var y []float64
	for i := 0; i < 400; i++ {
		row := []float64{r.Norm(), 3 + 2*r.Norm(), float64(r.Intn(2))}
		p := sigmoid(0.5 + 1.5*row[0] - 0.7*row[1] + 2*row[2])
		yy := 0.0
		if r.Float64() < p {
			yy = 1
		}
		x, y = append(x, row), append(y, yy)
	}
	l, err := fitLogit(x, y, nil, lambda)
	if err != nil {
		t.Fatal(err)
	}
	// the gradient of the objective vanishes at the fit (central differences)
	const h = 1e-5
	params := append([]float64{l.b}, l.w...)
	for i := range params {
		at := func(d float64) float64 {
			p := append([]float64(nil), params...)
			p[i] += d
			return objective(l, x, y, p[0], p[1:])
		}
		if g := (at(h) - at(-h)) / (2 * h); math.Abs(g) > 1e-4 {
			t.Errorf("d objective / d theta_%d = %.2e at the fit", i, g)
		}
	}
	// the raw-scale weights recover the signs and rough sizes of the truth
	want := []float64{1.5, -0.7, 2}
	for i, w := range want {
		if got := l.w[i] / l.sd[i]; math.Abs(got-w) > 0.6 {
			t.Errorf("weight %d = %.2f, want about %.2f", i, got, w)
		}
	}
}

func TestFitLogitOneFeatureBruteForce(t *testing.T) {
	// one feature: the minimum over a fine grid of (b, w) equals the fit
	x := [][]float64{{0}, {1}, {2}, {3}, {1}, {2}}
	y := []float64{0, 0, 1, 1, 1, 0}
	l, err := fitLogit(x, y, nil, lambda)
	if err != nil {
		t.Fatal(err)
	}
	best, bb, bw := math.Inf(1), 0.0, 0.0
	for b := -3.0; b <= 3; b += 0.005 {
		for w := -3.0; w <= 3; w += 0.005 {
			if o := objective(l, x, y, b, []float64{w}); o < best {
				best, bb, bw = o, b, w
			}
		}
	}
	if math.Abs(bb-l.b) > 0.01 || math.Abs(bw-l.w[0]) > 0.01 {
		t.Errorf("fit (%.3f, %.3f), grid minimum (%.3f, %.3f)", l.b, l.w[0], bb, bw)
	}
}

func TestSetWeight(t *testing.T) {
	l := &logit{mean: []float64{0.5, 2}, sd: []float64{0.25, 4}, w: []float64{1, -2}, b: 0.3}
	x0, x2 := []float64{0.7, 0}, []float64{0.7, 2}
	e0, e2 := l.eta(x0), l.eta(x2)
	old := l.w[1] / l.sd[1] // -0.5 per unit
	l.setWeight(1, 3)
	if got := l.eta(x0); math.Abs(got-e0) > 1e-12 {
		t.Errorf("eta with feature 0: %g, want %g", got, e0)
	}
	if got, want := l.eta(x2), e2+2*(3-old); math.Abs(got-want) > 1e-12 {
		t.Errorf("eta with feature 2: %g, want %g", got, want)
	}
}

func TestMaxMixture(t *testing.T) {
	// 3 pairs the graph says are duplicates (g = +40), 1 it says is not
	// (g = -40): the posteriors are 1, 1, 1, 0, so the prior's mean is 3/4
	// where the slope is 0: log-odds log 3 - z, per unit of x.
	g := []float64{40, 40, 40, -40}
	for _, c := range []struct{ x, z, want float64 }{
		{1, 0, math.Log(3)}, {2, 0, math.Log(3) / 2}, {1, -1, math.Log(3) + 1},
	} {
		got := maxMixture([]float64{c.x, c.x, c.x, c.x}, []float64{c.z, c.z, c.z, c.z}, g, 0)
		if math.Abs(got-c.want) > 1e-5 {
			t.Errorf("x %g z %g: %g, want %g", c.x, c.z, got, c.want)
		}
	}
	// all duplicates: the likelihood grows without end, the bound is 30;
	// a penalty pen t^2/2 stops it where 4 (1 - prior) = pen t, 4 e^-t / (1 + e^-t) = t
	ones, zeros, all := []float64{1, 1, 1, 1}, make([]float64, 4), []float64{40, 40, 40, 40}
	if got := maxMixture(ones, zeros, all, 0); got != 30 {
		t.Errorf("all duplicates: %g, want the bound 30", got)
	}
	got := maxMixture(ones, zeros, all, 1)
	if r := 4*(1-sigmoid(got)) - got; math.Abs(r) > 1e-5 {
		t.Errorf("penalised: t %g leaves slope %g", got, r)
	}
}
