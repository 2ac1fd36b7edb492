package jsonl

import (
	"bytes"
	"os"
	"testing"
)

func scratchLines(b *testing.B) [][]byte {
	data, err := os.ReadFile("/tmp/s100.jsonl")
	if err != nil {
		b.Skip()
	}
	return bytes.Split(data[:50<<20], []byte{'\n'})
}

func BenchmarkZNew(b *testing.B) {
	ls := scratchLines(b)
	b.SetBytes(50 << 20)
	for b.Loop() {
		for _, l := range ls {
			classifyJSON(l)
		}
	}
}
func BenchmarkZWalkUTF8(b *testing.B) {
	ls := scratchLines(b)
	b.SetBytes(50 << 20)
	for b.Loop() {
		for _, l := range ls {
			walk(l, 0, nil, nil, modeUTF8)
		}
	}
}
func BenchmarkZValid(b *testing.B) {
	ls := scratchLines(b)
	b.SetBytes(50 << 20)
	for b.Loop() {
		for _, l := range ls {
			Valid(l)
		}
	}
}
func BenchmarkZCR(b *testing.B) {
	ls := scratchLines(b)
	b.SetBytes(50 << 20)
	for b.Loop() {
		for _, l := range ls {
			bytes.IndexByte(l, '\r')
		}
	}
}
