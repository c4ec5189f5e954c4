//go:build !amd64 || purego

package cne

// useAVX2 is false off amd64 (or with the purego tag): the d = 8 kernels
// run their portable loops alone, and the assembly ones below are never
// called.
const useAVX2 = false

func pairLanes8AVX2(xi *float64, skip *uint64, base, halfGamma float64, idx *int32, px, pl *float64, n int, acc *[8][4]float64, links bool) int {
	panic("cne: pairLanes8AVX2 without AVX2")
}

func gatherLanes8AVX2(X, lam *float64, idx *int32, px, pl *float64, groups int) {
	panic("cne: gatherLanes8AVX2 without AVX2")
}
