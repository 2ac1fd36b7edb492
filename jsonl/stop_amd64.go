package jsonl

import "golang.org/x/sys/cpu"

// haveStopAVX2 is true where indexStopAVX2 can run.
var haveStopAVX2 = cpu.X86.HasAVX2

//go:noescape
func indexStopAVX2(b []byte) int

//go:noescape
func indexStopASCIIAVX2(b []byte) int
