//go:build amd64 && !purego

#include "textflag.h"

// func signedSums8x2AVX2(y *float64, m int, a, b *uint64, out *[2][8]float64)
//
// It computes what signedSum8 sums, for two sign vectors at once: out[v]
// = sum_k s_k y_k over the m rows of y (8 columns), s_k = +1 when bit k of
// the vector's words is set and -1 when it is clear. Each row is added or
// subtracted in row order, as signedSum8 does (s y_k is y_k with its sign
// bits flipped or not), so the sums are the same bits; the two vectors'
// four running sums are independent, which keeps more additions in
// flight than one vector's two would.
TEXT ·signedSums8x2AVX2(SB), NOSPLIT, $0-40
	MOVQ y+0(FP), SI
	MOVQ m+8(FP), CX
	MOVQ a+16(FP), R8
	MOVQ b+24(FP), R9
	LEAQ ·signFlip(SB), R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	TESTQ CX, CX
	JEQ summed

word:
	MOVQ (R8), AX
	MOVQ (R9), BX
	ADDQ $8, R8
	ADDQ $8, R9
	MOVQ $64, R12
	CMPQ CX, R12
	CMOVQLT CX, R12
	SUBQ R12, CX

row:
	VMOVUPD 0(SI), Y4
	VMOVUPD 32(SI), Y5
	MOVQ AX, DX
	ANDQ $1, DX
	SHLQ $5, DX
	VXORPD 0(R11)(DX*1), Y4, Y6
	VADDPD Y6, Y0, Y0
	VXORPD 0(R11)(DX*1), Y5, Y7
	VADDPD Y7, Y1, Y1
	MOVQ BX, DX
	ANDQ $1, DX
	SHLQ $5, DX
	VXORPD 0(R11)(DX*1), Y4, Y6
	VADDPD Y6, Y2, Y2
	VXORPD 0(R11)(DX*1), Y5, Y7
	VADDPD Y7, Y3, Y3
	SHRQ $1, AX
	SHRQ $1, BX
	ADDQ $64, SI
	DECQ R12
	JNE row
	TESTQ CX, CX
	JNE word

summed:
	MOVQ out+32(FP), DX
	VMOVUPD Y0, 0(DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VZEROUPPER
	RET
