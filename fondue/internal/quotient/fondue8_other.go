//go:build !amd64 || purego

package quotient

// useAVX2 is false off amd64 (or with the purego tag): the d = 8 signed
// sums run their portable loop alone, and the assembly one below is never
// called.
const useAVX2 = false

func signedSums8x2AVX2(y *float64, m int, a, b *uint64, out *[2][8]float64) {
	panic("quotient: signedSums8x2AVX2 without AVX2")
}
