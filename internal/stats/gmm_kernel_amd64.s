#include "textflag.h"

// func mahal8(m, c, xs *float64, d int, q *[8]float64)
//
// For eight interleaved components: for each row j < d,
// a = Σ_{i≤j} m[(j(j+1)/2+i)·8 : +8]·xs[i] − c[j·8 : +8], q += a².
// SSE2 only (amd64 baseline); the arithmetic per lane is the same IEEE
// sequence as mahal8Go, so results are bit-identical.
TEXT ·mahal8(SB), NOSPLIT, $0-40
	MOVQ m+0(FP), SI
	MOVQ c+8(FP), DX
	MOVQ xs+16(FP), DI
	MOVQ d+24(FP), CX
	MOVQ q+32(FP), R8
	XORPS X8, X8
	XORPS X9, X9
	XORPS X10, X10
	XORPS X11, X11
	XORQ R9, R9

rows:
	CMPQ R9, CX
	JGE done
	XORPS X0, X0
	XORPS X1, X1
	XORPS X2, X2
	XORPS X3, X3
	MOVUPD 0(DX), X5
	MOVUPD 16(DX), X6
	MOVUPD 32(DX), X7
	MOVUPD 48(DX), X12
	SUBPD X5, X0
	SUBPD X6, X1
	SUBPD X7, X2
	SUBPD X12, X3
	XORQ R10, R10

cols:
	MOVSD (DI)(R10*8), X4
	UNPCKLPD X4, X4
	MOVUPD 0(SI), X5
	MOVUPD 16(SI), X6
	MOVUPD 32(SI), X7
	MOVUPD 48(SI), X12
	MULPD X4, X5
	MULPD X4, X6
	MULPD X4, X7
	MULPD X4, X12
	ADDPD X5, X0
	ADDPD X6, X1
	ADDPD X7, X2
	ADDPD X12, X3
	ADDQ $64, SI
	INCQ R10
	CMPQ R10, R9
	JLE cols

	MULPD X0, X0
	MULPD X1, X1
	MULPD X2, X2
	MULPD X3, X3
	ADDPD X0, X8
	ADDPD X1, X9
	ADDPD X2, X10
	ADDPD X3, X11
	ADDQ $64, DX
	INCQ R9
	JMP rows

done:
	MOVUPD X8, 0(R8)
	MOVUPD X9, 16(R8)
	MOVUPD X10, 32(R8)
	MOVUPD X11, 48(R8)
	RET
