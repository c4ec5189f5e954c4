//go:build amd64 && !purego

package quotient

import "golang.org/x/sys/cpu"

// useAVX2 says whether randomSigns sums two sign vectors at once with
// signedSums8x2AVX2 (d = 8).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT

// signedSums8x2AVX2 computes signedSum8's sums for two sign vectors at
// once (fondue8_amd64.s): out[0] for the words a, out[1] for b.
//
//go:noescape
func signedSums8x2AVX2(y *float64, m int, a, b *uint64, out *[2][8]float64)

// signFlip is what signedSums8x2AVX2 XORs into a row for a clear bit (the
// sign bits: -1) and for a set one (nothing: +1), four lanes each.
var signFlip = [2][4]uint64{
	{1 << 63, 1 << 63, 1 << 63, 1 << 63},
	{},
}
