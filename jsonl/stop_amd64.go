package jsonl

import "golang.org/x/sys/cpu"

// haveStopAVX2 is true where indexStopAVX2 can run: scanString uses it, and classifyWalk
// then checks UTF-8 in one pass after the walk instead of in scanStringUTF8.
var haveStopAVX2 = cpu.X86.HasAVX2

//go:noescape
func indexStopAVX2(b []byte) int
