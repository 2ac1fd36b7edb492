#include "textflag.h"

// The string scans of walk, 32 bytes a compare with AVX2: the index of the first byte of b
// that ends a run of plain string bytes, or len(b). len(b) must be at least 32: the last block
// is loaded where b ends, overlapping the one before, its bytes already looked at shifted out
// of the mask. Y1 holds '"', Y2 '\\', Y5 and Y12 the constants of the control test.

// STOPS sets dst to 0xff in each byte of src that is '"', '\\' or matched by CONTROL.
#define STOPS(src, dst, t1, t2) \
	VPCMPEQB src, Y1, dst \
	VPCMPEQB src, Y2, t1  \
	VPOR     dst, t1, dst \
	CONTROL(src, t1, t2)  \
	VPOR     dst, t1, dst

#define SCAN \
	XORQ AX, AX              \
	LEAQ -32(CX), R8         \
loop64:                          \
	LEAQ 64(AX), DX          \
	CMPQ DX, CX              \
	JA   loop32              \
	VMOVDQU (SI)(AX*1), Y0   \
	VMOVDQU 32(SI)(AX*1), Y7 \
	STOPS(Y0, Y3, Y4, Y6)    \
	STOPS(Y7, Y8, Y9, Y10)   \
	VPOR   Y3, Y8, Y11       \
	VPTEST Y11, Y11          \
	JNZ    found64           \
	ADDQ   $64, AX           \
	JMP    loop64            \
found64:                         \
	VPMOVMSKB Y3, DX         \
	VPMOVMSKB Y8, R9         \
	SHLQ      $32, R9        \
	ORQ       R9, DX         \
	BSFQ      DX, DX         \
	ADDQ      DX, AX         \
	JMP       done           \
loop32:                          \
	CMPQ AX, R8              \
	JA   last                \
	VMOVDQU (SI)(AX*1), Y0   \
	STOPS(Y0, Y3, Y4, Y6)    \
	VPMOVMSKB Y3, DX         \
	TESTL     DX, DX         \
	JNZ       found          \
	ADDQ      $32, AX        \
	JMP       loop32         \
last:                            \
	CMPQ AX, CX              \
	JAE  done                \
	VMOVDQU (SI)(R8*1), Y0   \
	STOPS(Y0, Y3, Y4, Y6)    \
	VPMOVMSKB Y3, DX         \
	MOVQ      CX, R10        \
	MOVQ      AX, CX         \
	SUBQ      R8, CX         \
	SHRL      CX, DX         \
	TESTL     DX, DX         \
	JNZ       found          \
	MOVQ      R10, AX        \
	JMP       done           \
found:                           \
	BSFL DX, DX              \
	ADDQ DX, AX              \
done:

#define CONSTS \
	MOVQ b_base+0(FP), SI \
	MOVQ b_len+8(FP), CX  \
	MOVL $0x22, DX        \
	MOVQ DX, X1           \
	VPBROADCASTB X1, Y1   \
	MOVL $0x5c, DX        \
	MOVQ DX, X2           \
	VPBROADCASTB X2, Y2

// func indexStopAVX2(b []byte) int
// Stops at '"', '\\', a control byte (< 0x20) or a byte >= 0x80 (scanStringUTF8): signed,
// 0x20 > x holds for both of the last.
#define CONTROL(src, out, t) VPCMPGTB src, Y5, out
TEXT ·indexStopAVX2(SB), NOSPLIT, $0-32
	CONSTS
	MOVL $0x20, DX
	MOVQ DX, X5
	VPBROADCASTB X5, Y5
	SCAN
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET
#undef CONTROL

// func indexStopASCIIAVX2(b []byte) int
// Stops at '"', '\\' or a control byte (< 0x20) only (scanString): min(x, 0x1f) == x.
#define CONTROL(src, out, t) VPMINUB src, Y5, t \
	VPCMPEQB src, t, out
TEXT ·indexStopASCIIAVX2(SB), NOSPLIT, $0-32
	CONSTS
	MOVL $0x1f, DX
	MOVQ DX, X5
	VPBROADCASTB X5, Y5
	SCAN
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET
