package cne

import (
	"math"
	"testing"
)

func TestPosteriorAccuracy(t *testing.T) {
	worst := 0.0
	for z := -45.0; z <= 45; z += 0.000731 {
		got, want := posterior(z), 1/(1+math.Exp(z))
		if z > 40 { // clamped: below 5e-18 either way
			if got > 5e-18 || want > 5e-18 {
				t.Fatalf("posterior(%g) = %g, want %g", z, got, want)
			}
			continue
		}
		worst = max(worst, math.Abs(got-want)/want)
	}
	if worst > 1e-9 {
		t.Fatalf("worst relative error %.3g", worst)
	}
	t.Logf("worst relative error %.3g", worst)
	if posterior(1e300) > 1e-17 || posterior(-1e300) != 1 || posterior(0) != 0.5 || posterior(math.Inf(1)) > 1e-17 {
		t.Fatal("limits")
	}
}

func BenchmarkPosterior(b *testing.B) {
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += posterior(float64(i&1023)*0.01 - 5)
	}
	_ = s
}

func BenchmarkPosteriorMathExp(b *testing.B) {
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += 1 / (1 + math.Exp(float64(i&1023)*0.01-5))
	}
	_ = s
}

// The table behind posterior holds 2^(s/32), and the exponent trick scales
// it by any power of two the clamp lets through, including negative ones.
func TestPosteriorTableAndScale(t *testing.T) {
	for s, bits := range exp2Table {
		if got, want := math.Float64frombits(bits), math.Exp2(float64(s)/32); got != want {
			t.Fatalf("entry %d: %v, want %v", s, got, want)
		}
	}
	// At the clamp's ends and at integer multiples of ln 2 (f = 0, s = 0).
	for _, z := range []float64{-40, 40, -40 * math.Ln2, 20 * math.Ln2, 0, math.Ln2} {
		got, want := posterior(z), 1/(1+math.Exp(z))
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("posterior(%v) = %v, want %v", z, got, want)
		}
	}
	if !math.IsNaN(posterior(math.NaN())) {
		t.Error("posterior(NaN) is not NaN")
	}
}
