//go:build amd64 && !purego

package cne

import (
	"math"

	"golang.org/x/sys/cpu"
)

// useAVX2 says whether the d = 8 kernels run their whole groups of four
// partners through pairLanes8AVX2. POPCNT counts the accepted lanes.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT

// pairLanes8AVX2 adds the first n partners of the lane layout into acc,
// four lanes at a time (the lanes past n masked, but read: px, pl and idx
// must hold a whole multiple of eight partners), and returns how many it accepted (with links set,
// all of them). It computes
// exactly what pairLanes8 computes over the same partners, operation for
// operation, and the posterior as posterior does (gradient8_amd64.s).
// With links set, skip and idx are not read (they may be nil).
//
//go:noescape
func pairLanes8AVX2(xi *float64, skip *uint64, base, halfGamma float64, idx *int32, px, pl *float64, n int, acc *[8][4]float64, links bool) (accepted int)

// gatherLanes8AVX2 copies groups x 4 rows idx[t] of X (d = 8) and their
// lam[idx[t]] into the lane layout px, pl, as gatherNegatives does.
//
//go:noescape
func gatherLanes8AVX2(X, lam *float64, idx *int32, px, pl *float64, groups int)

// lanesConst holds the constants of pairLanes8AVX2, one per lane (the
// same four times but for the lane numbers), in the order of the offsets
// in gradient8_amd64.s.
var lanesConst = func() (k [13][4]float64) {
	for l := range 4 {
		k[0][l] = 32 * math.Log2E
		k[1][l] = -1847
		k[2][l] = 1847
		k[3][l] = 6755399441055744.0
		k[4][l] = c3
		k[5][l] = c2
		k[6][l] = c1
		k[7][l] = 1
		k[8][l] = math.Float64frombits(31)
		k[9][l] = math.Float64frombits(63)
		k[10][l] = math.Float64frombits(1)
		k[11][l] = math.Float64frombits(uint64(l))
		k[12][l] = math.Float64frombits(uint64(4 + l))
	}
	return k
}()
