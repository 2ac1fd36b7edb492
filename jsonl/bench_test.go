package jsonl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"testing"

	"github.com/clawdoctor/clawdoctor/jsonl"
	"github.com/clawdoctor/clawdoctor/jsonl/internal/linegen"
)

var (
	benchOnce sync.Once
	benchData []byte
)

// benchInput is 32 MiB of generated transcript lines (tool calls, thinking, CJK, base64).
func benchInput(b *testing.B) []byte {
	benchOnce.Do(func() {
		var buf bytes.Buffer
		if _, err := linegen.Write(&buf, 7, 32<<20); err != nil {
			panic(err)
		}
		benchData = buf.Bytes()
	})
	return benchData
}

func benchLines(b *testing.B) [][]byte {
	return bytes.Split(bytes.TrimSuffix(benchInput(b), []byte("\n")), []byte("\n"))
}

// BenchmarkValid compares jsonl.Valid with encoding/json.Valid line by line on the same data.
func BenchmarkValid(b *testing.B) {
	lines := benchLines(b)
	for _, c := range []struct {
		name string
		f    func([]byte) bool
	}{{"jsonl", jsonl.Valid}, {"encoding_json", json.Valid}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(benchInput(b))))
			stop := cpuMeter(b)
			for b.Loop() {
				for _, l := range lines {
					if !c.f(l) {
						b.Fatal("valid line rejected")
					}
				}
			}
			stop(int64(len(benchInput(b))))
		})
	}
}

// BenchmarkReader is the line splitting and classification alone.
func BenchmarkReader(b *testing.B) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	stop := cpuMeter(b)
	for b.Loop() {
		r := jsonl.NewReader(bytes.NewReader(data), jsonl.Options{})
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	stop(int64(len(data)))
}

// BenchmarkValidate is the whole pipeline (read, classify, validate) inline and on workers.
func BenchmarkValidate(b *testing.B) {
	data := benchInput(b)
	for _, w := range []int{1, 2} {
		b.Run(map[int]string{1: "inline", 2: "workers2"}[w], func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			stop := processMeter(b)
			if w == 1 {
				stop = cpuMeter(b)
			}
			defer stop(int64(len(data)))
			for b.Loop() {
				s, err := jsonl.Validate(context.Background(), bytes.NewReader(data), "bench", jsonl.ValidateOptions{Workers: w})
				if err != nil || s.BadLines != 0 {
					b.Fatal(err, s.BadLines)
				}
			}
		})
	}
}

// BenchmarkClassify is the per-line anomaly scan (CR, NUL, UTF-8, blank).
func BenchmarkClassify(b *testing.B) {
	lines := benchLines(b)
	b.SetBytes(int64(len(benchInput(b))))
	stop := cpuMeter(b)
	for b.Loop() {
		for _, l := range lines {
			if jsonl.Classify(l) != 0 {
				b.Fatal("flagged")
			}
		}
	}
	stop(int64(len(benchInput(b))))
}

// BenchmarkValidImage is one tool-result line carrying a 256 KiB base64 screenshot: the
// long-string path of the scanner.
func BenchmarkValidImage(b *testing.B) {
	raw := bytes.Repeat([]byte("iVBORw0KGgoAAAANSUhEUgAAB4AAAAQ4CAIAAABnsVYUAAAgAElEQVR4nOzd"), 256<<10/56)
	line := []byte(`{"type":"message","message":{"role":"toolResult","content":[{"type":"image","data":"` + string(raw) + `"}]}}`)
	for _, c := range []struct {
		name string
		f    func([]byte) bool
	}{{"jsonl", jsonl.Valid}, {"encoding_json", json.Valid}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			stop := cpuMeter(b)
			for b.Loop() {
				if !c.f(line) {
					b.Fatal("valid line rejected")
				}
			}
			stop(int64(len(line)))
		})
	}
}
