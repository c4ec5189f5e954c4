package cne

import "math"

// posterior returns 1 / (1 + e^z), the CNE link posterior for log-odds -z,
// to about 6e-10 relative error. CNE evaluates it once per sampled pair,
// hundreds of millions of times per fit, so it replaces math.Exp with a
// short chain of dependent operations. With t = 32 z log2(e) rounded to
// the nearest integer n = 32q + s (0 <= s < 32) plus f, |f| <= 1/2,
// e^z = 2^q * 2^(s/32) * 2^(f/32): 2^q goes into the exponent bits of the
// table entry 2^(s/32), and 2^(f/32) = e^(f ln2/32) is a cubic in f. In the
// pair loops the posterior sits between a distance and the accumulation
// that uses it, so its latency, not its operation count, bounds the loop.
//
// t is clamped to [-1847, 1847] (|z| <= 40.008), beyond which the posterior
// is within 5e-18 of 0 or 1; the clamp also removes overflow checks. It
// compares rather than calling min and max, whose NaN and signed-zero
// rules put several more instructions on the chain, and just fits the
// inlining budget (the hot loops must not make a call per pair). A NaN
// passes through and gives NaN.
func posterior(z float64) float64 {
	t := z * (32 * math.Log2E)
	if t < -1847 {
		t = -1847
	}
	if t > 1847 {
		t = 1847
	}
	k := (t + 6755399441055744.0) - 6755399441055744.0 // round to nearest
	f := t - k                                         // 2^(f/32) = e^(f c), c = ln(2)/32
	n := int64(k)
	return 1 / (1 + (1+f*(c1+f*(c2+f*c3)))*math.Float64frombits(exp2Table[n&31]+uint64(n>>5)<<52))
}

// The Taylor coefficients of e^(f c) in f, c = ln(2)/32.
const (
	c1 = math.Ln2 / 32
	c2 = c1 * c1 / 2
	c3 = c1 * c1 * c1 / 6
)

// exp2Table holds the bits of 2^(s/32) for s = 0..31; adding q<<52 to
// them multiplies by 2^q (q may be negative: the sum wraps).
var exp2Table = func() (t [32]uint64) {
	for s := range t {
		t[s] = math.Float64bits(math.Exp2(float64(s) / 32))
	}
	return t
}()
