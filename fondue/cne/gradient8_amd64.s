//go:build amd64 && !purego

#include "textflag.h"

// Offsets of the constants in ·lanesConst (gradient8_amd64.go).
#define K_LOG2E32 0
#define K_LO 32
#define K_HI 64
#define K_MAGIC 96
#define K_C3 128
#define K_C2 160
#define K_C1 192
#define K_ONE 224
#define K_31 256
#define K_63 288
#define K_BIT 320
#define K_LANE 352 // 0, 1, 2, 3 (int64): the lanes of the first group of a pair
#define K_LANE2 384 // 4, 5, 6, 7: those of the second

// The frame, from its first 32-byte boundary (DX): xi broadcast,
// coordinate c at 32c(DX); base and halfGamma, each four times; the
// posteriors of up to CHUNK groups.
#define BASE 256
#define HG 288
#define PBUF 320
#define CHUNK 8

// func pairLanes8AVX2(xi *float64, skip *uint64, base, halfGamma float64, idx *int32, px, pl *float64, n int, acc *[8][4]float64, links bool) (accepted int)
//
// It takes the partners four at a time, one per lane, and does for each
// what pairLanes8 does, in two passes over chunks of up to CHUNK groups.
//
// The first pass computes the chunk's posteriors, two groups side by
// side: the skip test (sampled negatives only), the squared distance as
// the same tree of additions, z = (base - pl) + halfGamma d2, and the
// posterior of posterior.go step for step (its table entry fetched by a
// gather); 1 - P for links. That is a long chain of dependent steps;
// running two independent ones at once keeps more of the processor
// busy. The second pass adds P u_c into acc[c], lane by lane, in partner
// order.
//
// A skipped partner, and a lane past n, gets P = +0 and adds +-0 to its
// lane, which leaves the lane as it was: a lane that starts at +0 never
// holds -0. The pairs of groups read past n up to a multiple of eight
// partners. Multiplications and additions stay separate (no FMA), as the
// Go compiler emits them for GOAMD64 v1 and v2.
TEXT ·pairLanes8AVX2(SB), NOSPLIT, $608-88
	LEAQ 31(SP), DX
	ANDQ $~31, DX
	MOVQ xi+0(FP), AX
	VBROADCASTSD 0(AX), Y0
	VMOVUPD Y0, 0(DX)
	VBROADCASTSD 8(AX), Y0
	VMOVUPD Y0, 32(DX)
	VBROADCASTSD 16(AX), Y0
	VMOVUPD Y0, 64(DX)
	VBROADCASTSD 24(AX), Y0
	VMOVUPD Y0, 96(DX)
	VBROADCASTSD 32(AX), Y0
	VMOVUPD Y0, 128(DX)
	VBROADCASTSD 40(AX), Y0
	VMOVUPD Y0, 160(DX)
	VBROADCASTSD 48(AX), Y0
	VMOVUPD Y0, 192(DX)
	VBROADCASTSD 56(AX), Y0
	VMOVUPD Y0, 224(DX)
	VBROADCASTSD base+16(FP), Y0
	VMOVUPD Y0, BASE(DX)
	VBROADCASTSD halfGamma+24(FP), Y0
	VMOVUPD Y0, HG(DX)
	MOVQ skip+8(FP), R8
	MOVQ idx+32(FP), DI
	MOVQ px+40(FP), SI
	MOVQ pl+48(FP), R9
	MOVQ n+56(FP), BX // partners left, from the current pair's first
	LEAQ ·lanesConst(SB), R11
	LEAQ ·exp2Table(SB), R10
	XORQ AX, AX

chunk:
	CMPQ BX, $0
	JLE done
	MOVQ SI, R12  // the chunk's first group, for the second pass
	XORQ R13, R13 // 32 x the chunk's groups so far

pair:
	// Lanes of the pair at or past n: Y12 = n left, against 0..7.
	MOVQ BX, X12
	VPBROADCASTQ X12, Y12
	VPCMPEQQ Y0, Y0, Y0
	VPCMPEQQ Y6, Y6, Y6
	CMPB links+72(FP), $0
	JNE lanes

	// The skip tests: all ones where the candidate's bit is clear.
	VPMOVZXDQ 0(DI), Y1
	VPMOVZXDQ 16(DI), Y7
	VPSRLQ $6, Y1, Y2
	VPSRLQ $6, Y7, Y8
	VPCMPEQQ Y3, Y3, Y3
	VPCMPEQQ Y9, Y9, Y9
	VPGATHERQQ Y3, (R8)(Y2*8), Y4
	VPGATHERQQ Y9, (R8)(Y8*8), Y10
	VPAND K_63(R11), Y1, Y1
	VPAND K_63(R11), Y7, Y7
	VPSRLVQ Y1, Y4, Y4
	VPSRLVQ Y7, Y10, Y10
	VPAND K_BIT(R11), Y4, Y4
	VPAND K_BIT(R11), Y10, Y10
	VPXOR Y2, Y2, Y2
	VPXOR Y8, Y8, Y8
	VPCMPEQQ Y2, Y4, Y0
	VPCMPEQQ Y8, Y10, Y6

lanes:
	VPCMPGTQ K_LANE(R11), Y12, Y1
	VPCMPGTQ K_LANE2(R11), Y12, Y7
	VPAND Y1, Y0, Y0
	VPAND Y7, Y6, Y6
	VMOVMSKPD Y0, CX
	POPCNTL CX, CX
	ADDQ CX, AX
	VMOVMSKPD Y6, CX
	POPCNTL CX, CX
	ADDQ CX, AX

	// d2 = (u0^2 + u1^2) + (u2^2 + u3^2) + ((u4^2 + u5^2) + (u6^2 + u7^2)),
	// z = (base - pl) + halfGamma d2, and P = 1 / (1 + e^z) as posterior
	// computes it: t = 32 log2(e) z clamped to +-1847, rounded to n by
	// adding and subtracting 1.5 2^52 (whose low bits then hold n),
	// f = t - n, and 2^(n/32) = exp2Table[n & 31] + (n >> 5) << 52 times
	// the cubic 1 + f (c1 + f (c2 + f c3)).
	VMOVUPD 0(DX), Y1
	VMOVUPD 0(DX), Y7
	VSUBPD 0(SI), Y1, Y1
	VSUBPD 256(SI), Y7, Y7
	VMULPD Y1, Y1, Y1
	VMULPD Y7, Y7, Y7
	VMOVUPD 32(DX), Y2
	VMOVUPD 32(DX), Y8
	VSUBPD 32(SI), Y2, Y2
	VSUBPD 288(SI), Y8, Y8
	VMULPD Y2, Y2, Y2
	VMULPD Y8, Y8, Y8
	VADDPD Y2, Y1, Y1
	VADDPD Y8, Y7, Y7
	VMOVUPD 64(DX), Y2
	VMOVUPD 64(DX), Y8
	VSUBPD 64(SI), Y2, Y2
	VSUBPD 320(SI), Y8, Y8
	VMULPD Y2, Y2, Y2
	VMULPD Y8, Y8, Y8
	VMOVUPD 96(DX), Y3
	VMOVUPD 96(DX), Y9
	VSUBPD 96(SI), Y3, Y3
	VSUBPD 352(SI), Y9, Y9
	VMULPD Y3, Y3, Y3
	VMULPD Y9, Y9, Y9
	VADDPD Y3, Y2, Y2
	VADDPD Y9, Y8, Y8
	VADDPD Y2, Y1, Y1
	VADDPD Y8, Y7, Y7
	VMOVUPD 128(DX), Y2
	VMOVUPD 128(DX), Y8
	VSUBPD 128(SI), Y2, Y2
	VSUBPD 384(SI), Y8, Y8
	VMULPD Y2, Y2, Y2
	VMULPD Y8, Y8, Y8
	VMOVUPD 160(DX), Y3
	VMOVUPD 160(DX), Y9
	VSUBPD 160(SI), Y3, Y3
	VSUBPD 416(SI), Y9, Y9
	VMULPD Y3, Y3, Y3
	VMULPD Y9, Y9, Y9
	VADDPD Y3, Y2, Y2
	VADDPD Y9, Y8, Y8
	VMOVUPD 192(DX), Y3
	VMOVUPD 192(DX), Y9
	VSUBPD 192(SI), Y3, Y3
	VSUBPD 448(SI), Y9, Y9
	VMULPD Y3, Y3, Y3
	VMULPD Y9, Y9, Y9
	VMOVUPD 224(DX), Y4
	VMOVUPD 224(DX), Y10
	VSUBPD 224(SI), Y4, Y4
	VSUBPD 480(SI), Y10, Y10
	VMULPD Y4, Y4, Y4
	VMULPD Y10, Y10, Y10
	VADDPD Y4, Y3, Y3
	VADDPD Y10, Y9, Y9
	VADDPD Y3, Y2, Y2
	VADDPD Y9, Y8, Y8
	VADDPD Y2, Y1, Y1
	VADDPD Y8, Y7, Y7
	VMOVUPD BASE(DX), Y2
	VMOVUPD BASE(DX), Y8
	VSUBPD 0(R9), Y2, Y2
	VSUBPD 32(R9), Y8, Y8
	VMULPD HG(DX), Y1, Y1
	VMULPD HG(DX), Y7, Y7
	VADDPD Y1, Y2, Y1
	VADDPD Y7, Y8, Y7
	VMULPD K_LOG2E32(R11), Y1, Y1
	VMULPD K_LOG2E32(R11), Y7, Y7
	VMOVUPD K_LO(R11), Y2
	VMOVUPD K_LO(R11), Y8
	VMAXPD Y1, Y2, Y1
	VMAXPD Y7, Y8, Y7
	VMOVUPD K_HI(R11), Y2
	VMOVUPD K_HI(R11), Y8
	VMINPD Y1, Y2, Y1
	VMINPD Y7, Y8, Y7
	VADDPD K_MAGIC(R11), Y1, Y2
	VADDPD K_MAGIC(R11), Y7, Y8
	VSUBPD K_MAGIC(R11), Y2, Y3
	VSUBPD K_MAGIC(R11), Y8, Y9
	VSUBPD Y3, Y1, Y1
	VSUBPD Y9, Y7, Y7
	VPSUBQ K_MAGIC(R11), Y2, Y2
	VPSUBQ K_MAGIC(R11), Y8, Y8
	VPAND K_31(R11), Y2, Y3
	VPAND K_31(R11), Y8, Y9
	VPSUBQ Y3, Y2, Y2
	VPSUBQ Y9, Y8, Y8
	VPSLLQ $47, Y2, Y2
	VPSLLQ $47, Y8, Y8
	VPCMPEQQ Y4, Y4, Y4
	VPCMPEQQ Y10, Y10, Y10
	VPGATHERQQ Y4, (R10)(Y3*8), Y5
	VPGATHERQQ Y10, (R10)(Y9*8), Y11
	VPADDQ Y2, Y5, Y5
	VPADDQ Y8, Y11, Y11
	VMULPD K_C3(R11), Y1, Y2
	VMULPD K_C3(R11), Y7, Y8
	VADDPD K_C2(R11), Y2, Y2
	VADDPD K_C2(R11), Y8, Y8
	VMULPD Y1, Y2, Y2
	VMULPD Y7, Y8, Y8
	VADDPD K_C1(R11), Y2, Y2
	VADDPD K_C1(R11), Y8, Y8
	VMULPD Y1, Y2, Y2
	VMULPD Y7, Y8, Y8
	VADDPD K_ONE(R11), Y2, Y2
	VADDPD K_ONE(R11), Y8, Y8
	VMULPD Y5, Y2, Y2
	VMULPD Y11, Y8, Y8
	VADDPD K_ONE(R11), Y2, Y2
	VADDPD K_ONE(R11), Y8, Y8
	VMOVUPD K_ONE(R11), Y1
	VMOVUPD K_ONE(R11), Y7
	VDIVPD Y2, Y1, Y1
	VDIVPD Y8, Y7, Y7
	CMPB links+72(FP), $0
	JEQ masked
	VMOVUPD K_ONE(R11), Y2
	VMOVUPD K_ONE(R11), Y8
	VSUBPD Y1, Y2, Y1
	VSUBPD Y7, Y8, Y7

masked:
	VANDPD Y0, Y1, Y1
	VANDPD Y6, Y7, Y7
	VMOVUPD Y1, PBUF+0(DX)(R13*1)
	VMOVUPD Y7, PBUF+32(DX)(R13*1)

	ADDQ $32, DI
	ADDQ $512, SI
	ADDQ $64, R9
	ADDQ $64, R13
	SUBQ $8, BX
	JLE sums
	CMPQ R13, $(32*CHUNK)
	JNE pair

sums:
	// acc[c] += P u_c over the chunk's groups.
	MOVQ acc+64(FP), CX
	VMOVUPD 0(CX), Y8
	VMOVUPD 32(CX), Y9
	VMOVUPD 64(CX), Y10
	VMOVUPD 96(CX), Y11
	VMOVUPD 128(CX), Y12
	VMOVUPD 160(CX), Y13
	VMOVUPD 192(CX), Y14
	VMOVUPD 224(CX), Y15
	XORQ R14, R14

sum:
	VMOVUPD PBUF(DX)(R14*1), Y0
	VMOVUPD 0(DX), Y1
	VSUBPD 0(R12), Y1, Y1
	VMULPD Y0, Y1, Y1
	VADDPD Y1, Y8, Y8
	VMOVUPD 32(DX), Y1
	VSUBPD 32(R12), Y1, Y1
	VMULPD Y0, Y1, Y1
	VADDPD Y1, Y9, Y9
	VMOVUPD 64(DX), Y1
	VSUBPD 64(R12), Y1, Y1
	VMULPD Y0, Y1, Y1
	VADDPD Y1, Y10, Y10
	VMOVUPD 96(DX), Y1
	VSUBPD 96(R12), Y1, Y1
	VMULPD Y0, Y1, Y1
	VADDPD Y1, Y11, Y11
	VMOVUPD 128(DX), Y1
	VSUBPD 128(R12), Y1, Y1
	VMULPD Y0, Y1, Y1
	VADDPD Y1, Y12, Y12
	VMOVUPD 160(DX), Y1
	VSUBPD 160(R12), Y1, Y1
	VMULPD Y0, Y1, Y1
	VADDPD Y1, Y13, Y13
	VMOVUPD 192(DX), Y1
	VSUBPD 192(R12), Y1, Y1
	VMULPD Y0, Y1, Y1
	VADDPD Y1, Y14, Y14
	VMOVUPD 224(DX), Y1
	VSUBPD 224(R12), Y1, Y1
	VMULPD Y0, Y1, Y1
	VADDPD Y1, Y15, Y15
	ADDQ $256, R12
	ADDQ $32, R14
	CMPQ R14, R13
	JNE sum
	VMOVUPD Y8, 0(CX)
	VMOVUPD Y9, 32(CX)
	VMOVUPD Y10, 64(CX)
	VMOVUPD Y11, 96(CX)
	VMOVUPD Y12, 128(CX)
	VMOVUPD Y13, 160(CX)
	VMOVUPD Y14, 192(CX)
	VMOVUPD Y15, 224(CX)
	JMP chunk

done:
	VZEROUPPER
	MOVQ AX, accepted+80(FP)
	RET

// func gatherLanes8AVX2(X, lam *float64, idx *int32, px, pl *float64, groups int)
//
// It copies rows idx[t] of X (8 columns) into the lane layout px and
// lam[idx[t]] into pl, four rows a group. Each pair of coordinates of
// the four rows takes two loads and two shuffles: [a0 a1 c0 c1] and
// [b0 b1 d0 d1] interleave to [a0 b0 c0 d0] and [a1 b1 c1 d1]. With two
// stores a row instead of eight, many more rows' cache misses are in
// flight at once than in the Go loop.
TEXT ·gatherLanes8AVX2(SB), NOSPLIT, $0-48
	MOVQ X+0(FP), R8
	MOVQ lam+8(FP), R9
	MOVQ idx+16(FP), DI
	MOVQ px+24(FP), SI
	MOVQ pl+32(FP), R11
	MOVQ groups+40(FP), R12
	TESTQ R12, R12
	JEQ gathered

gather:
	MOVL 0(DI), AX
	MOVL 4(DI), BX
	MOVL 8(DI), CX
	MOVL 12(DI), DX
	SHLQ $3, AX
	SHLQ $3, BX
	SHLQ $3, CX
	SHLQ $3, DX
	VMOVUPD 0(R8)(AX*8), X0
	VINSERTF128 $1, 0(R8)(CX*8), Y0, Y0
	VMOVUPD 0(R8)(BX*8), X1
	VINSERTF128 $1, 0(R8)(DX*8), Y1, Y1
	VUNPCKLPD Y1, Y0, Y2
	VUNPCKHPD Y1, Y0, Y3
	VMOVUPD Y2, 0(SI)
	VMOVUPD Y3, 32(SI)
	VMOVUPD 16(R8)(AX*8), X0
	VINSERTF128 $1, 16(R8)(CX*8), Y0, Y0
	VMOVUPD 16(R8)(BX*8), X1
	VINSERTF128 $1, 16(R8)(DX*8), Y1, Y1
	VUNPCKLPD Y1, Y0, Y2
	VUNPCKHPD Y1, Y0, Y3
	VMOVUPD Y2, 64(SI)
	VMOVUPD Y3, 96(SI)
	VMOVUPD 32(R8)(AX*8), X0
	VINSERTF128 $1, 32(R8)(CX*8), Y0, Y0
	VMOVUPD 32(R8)(BX*8), X1
	VINSERTF128 $1, 32(R8)(DX*8), Y1, Y1
	VUNPCKLPD Y1, Y0, Y2
	VUNPCKHPD Y1, Y0, Y3
	VMOVUPD Y2, 128(SI)
	VMOVUPD Y3, 160(SI)
	VMOVUPD 48(R8)(AX*8), X0
	VINSERTF128 $1, 48(R8)(CX*8), Y0, Y0
	VMOVUPD 48(R8)(BX*8), X1
	VINSERTF128 $1, 48(R8)(DX*8), Y1, Y1
	VUNPCKLPD Y1, Y0, Y2
	VUNPCKHPD Y1, Y0, Y3
	VMOVUPD Y2, 192(SI)
	VMOVUPD Y3, 224(SI)
	VMOVSD 0(R9)(AX*1), X4
	VMOVHPD 0(R9)(BX*1), X4, X4
	VMOVSD 0(R9)(CX*1), X5
	VMOVHPD 0(R9)(DX*1), X5, X5
	VINSERTF128 $1, X5, Y4, Y4
	VMOVUPD Y4, 0(R11)
	ADDQ $16, DI
	ADDQ $256, SI
	ADDQ $32, R11
	DECQ R12
	JNE gather

gathered:
	VZEROUPPER
	RET
