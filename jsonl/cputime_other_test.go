//go:build !linux

package jsonl_test

import "testing"

func cpuMeter(b *testing.B) (stop func(bytesPerOp int64)) { return func(int64) {} }

func processMeter(b *testing.B) (stop func(bytesPerOp int64)) { return func(int64) {} }
