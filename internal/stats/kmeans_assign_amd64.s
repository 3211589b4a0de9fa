#include "textflag.h"

// func sqDist8(t, x *float64, d int, out *[8]float64)
//
// out[l] = Σ_j (x[j] − t[j·8+l])², j in order: the same IEEE sequence per
// lane as sqDist8Go, two lanes per SSE2 instruction.
TEXT ·sqDist8(SB), NOSPLIT, $0-32
	MOVQ t+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ d+16(FP), CX
	MOVQ out+24(FP), R8
	XORPS X8, X8
	XORPS X9, X9
	XORPS X10, X10
	XORPS X11, X11
	XORQ R10, R10

loop:
	CMPQ R10, CX
	JGE done
	MOVSD (DI)(R10*8), X4
	UNPCKLPD X4, X4
	MOVAPS X4, X0
	MOVAPS X4, X1
	MOVAPS X4, X2
	MOVAPS X4, X3
	MOVUPD 0(SI), X5
	MOVUPD 16(SI), X6
	MOVUPD 32(SI), X7
	MOVUPD 48(SI), X12
	SUBPD X5, X0
	SUBPD X6, X1
	SUBPD X7, X2
	SUBPD X12, X3
	MULPD X0, X0
	MULPD X1, X1
	MULPD X2, X2
	MULPD X3, X3
	ADDPD X0, X8
	ADDPD X1, X9
	ADDPD X2, X10
	ADDPD X3, X11
	ADDQ $64, SI
	INCQ R10
	JMP loop

done:
	MOVUPD X8, 0(R8)
	MOVUPD X9, 16(R8)
	MOVUPD X10, 32(R8)
	MOVUPD X11, 48(R8)
	RET
