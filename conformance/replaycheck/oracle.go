// Package replaycheck checks clawdoctor's replay and compaction engines against the real
// OpenClaw: it builds requests for the Node drivers in conformance/oracle, runs them through
// ../shared/tools/openclaw-reference for a release, runs the same inputs through our engines
// and compares the answers as JSON. Recorded answers (testdata/) let `go test ./...` check the
// same comparisons offline.
package replaycheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// DefaultRelease is the release the engines follow by default: the newest JSONL-era one.
const DefaultRelease = "2026.6.11"

// Oracle runs one Node driver of conformance/oracle under one OpenClaw release.
type Oracle struct {
	Tool    string // the openclaw-reference script
	Release string // OPENCLAW_REF_VERSION
	Script  string // driver file name in conformance/oracle, e.g. "replay.mjs"
}

// ErrNoReference is returned when the reference tool cannot be found.
var ErrNoReference = errors.New("openclaw-reference not found")

// repoDir is the module root (this file is conformance/replaycheck/oracle.go).
func repoDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// ReferenceTool finds ../shared/tools/openclaw-reference (or $OPENCLAW_REFERENCE).
func ReferenceTool() (string, error) {
	ref := os.Getenv("OPENCLAW_REFERENCE")
	if ref == "" {
		ref = filepath.Join(repoDir(), "..", "..", "shared", "tools", "openclaw-reference")
	}
	abs, err := filepath.Abs(ref)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("%w at %s (set OPENCLAW_REFERENCE)", ErrNoReference, abs)
	}
	return abs, nil
}

// Run sends every request (one JSON value each) to the driver and returns its answers in the
// same order. The driver answers line by line; a driver that exits early or answers fewer
// lines is an error naming the release and the driver's stderr.
func (o Oracle) Run(ctx context.Context, reqs []any) ([]json.RawMessage, error) {
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	enc.SetEscapeHTML(false)
	for i, r := range reqs {
		if err := enc.Encode(r); err != nil {
			return nil, fmt.Errorf("request %d: %w", i, err)
		}
	}
	script := filepath.Join(repoDir(), "conformance", "oracle", o.Script)
	cmd := exec.CommandContext(ctx, o.Tool, "--node", script)
	cmd.Env = append(os.Environ(), "OPENCLAW_REF_VERSION="+o.Release, "TZ=UTC")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("openclaw %s %s: %w", o.Release, o.Script, err)
	}
	var out []json.RawMessage
	sc := bufio.NewReader(stdout)
	for {
		line, err := sc.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			out = append(out, json.RawMessage(bytes.TrimSpace(line)))
		}
		if err != nil {
			break
		}
	}
	werr := cmd.Wait()
	if werr != nil || len(out) != len(reqs) {
		tail := strings.TrimSpace(stderr.String())
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return out, fmt.Errorf("openclaw %s %s: %d of %d answers (%v): %s", o.Release, o.Script, len(out), len(reqs), werr, tail)
	}
	return out, nil
}
