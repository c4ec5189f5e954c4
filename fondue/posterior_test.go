package fondue

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
	if worst > 3e-7 {
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
