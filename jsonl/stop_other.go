//go:build !amd64

package jsonl

// haveStopAVX2 is a variable, as on amd64, so that the tests can compare both scans.
var haveStopAVX2 = false

func indexStopAVX2(b []byte) int { panic("unreachable") }
