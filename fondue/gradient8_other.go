//go:build !amd64 || purego

package fondue

// useAVX2 is false off amd64: the d = 8 kernels run pairLanes8 alone.
const useAVX2 = false

func pairLanes8AVX2(xi *float64, skip *uint64, base, halfGamma float64, idx *int32, px, pl *float64, n int, acc *[8][4]float64, links bool) int {
	panic("fondue: pairLanes8AVX2 without AVX2")
}

func gatherLanes8AVX2(X, lam *float64, idx *int32, px, pl *float64, groups int) {
	panic("fondue: gatherLanes8AVX2 without AVX2")
}
