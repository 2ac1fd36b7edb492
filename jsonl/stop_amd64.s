#include "textflag.h"

// STOPS sets dst to 0xff in each byte of src that is '"' (Y1), '\\' (Y2) or a control byte:
// min(x, 0x1f) == x (Y5 holds 0x1f). t is scratch.
#define STOPS(src, dst, t) \
	VPCMPEQB src, Y1, dst \
	VPCMPEQB src, Y2, t   \
	VPOR     dst, t, dst  \
	VPMINUB  src, Y5, t   \
	VPCMPEQB src, t, t    \
	VPOR     dst, t, dst

// func indexStopAVX2(b []byte) int
// The string scan of walk (scanString), 32 bytes a compare: the index of the first byte of b
// that is '"', '\\' or a control byte (< 0x20), or len(b). Bytes >= 0x80 are not stops:
// classifyWalk checks a line's UTF-8 in one pass after the walk. len(b) must be at least 32:
// the last block is loaded where b ends, overlapping the one before, with the bytes already
// looked at shifted out of its mask.
TEXT ·indexStopAVX2(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVL $0x22, DX
	MOVQ DX, X1
	VPBROADCASTB X1, Y1
	MOVL $0x5c, DX
	MOVQ DX, X2
	VPBROADCASTB X2, Y2
	MOVL $0x1f, DX
	MOVQ DX, X5
	VPBROADCASTB X5, Y5
	XORQ AX, AX      // the offset of the next block
	LEAQ -32(CX), R8 // the offset of the last block

loop64:
	LEAQ 64(AX), DX
	CMPQ DX, CX
	JA   loop32
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y7
	STOPS(Y0, Y3, Y4)
	STOPS(Y7, Y8, Y9)
	VPOR   Y3, Y8, Y11
	VPTEST Y11, Y11
	JNZ    found64
	ADDQ   $64, AX
	JMP    loop64

found64:
	VPMOVMSKB Y3, DX
	VPMOVMSKB Y8, R9
	SHLQ      $32, R9
	ORQ       R9, DX
	BSFQ      DX, DX
	ADDQ      DX, AX
	JMP       done

loop32:
	CMPQ AX, R8
	JA   last
	VMOVDQU (SI)(AX*1), Y0
	STOPS(Y0, Y3, Y4)
	VPMOVMSKB Y3, DX
	TESTL     DX, DX
	JNZ       found
	ADDQ      $32, AX
	JMP       loop32

last:
	CMPQ AX, CX
	JAE  done
	VMOVDQU (SI)(R8*1), Y0
	STOPS(Y0, Y3, Y4)
	VPMOVMSKB Y3, DX
	MOVQ      CX, R10 // len(b), the answer when no byte stops
	MOVQ      AX, CX
	SUBQ      R8, CX  // the block's bytes already looked at
	SHRL      CX, DX
	TESTL     DX, DX
	JNZ       found
	MOVQ      R10, AX
	JMP       done

found:
	BSFL DX, DX
	ADDQ DX, AX

done:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET
