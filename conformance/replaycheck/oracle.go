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
	"github.com/clawdoctor/clawdoctor/conformance/harness"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// DefaultRelease is the release the engines follow by default: the newest JSONL-era one.
const DefaultRelease = "2026.6.11"

// RecordedReleases are the verified releases, whose oracle answers are recorded under testdata/.
var RecordedReleases = []string{"2026.3.13", "2026.4.24", "2026.6.11"}

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

// ReferenceTool finds the reference: scripts/reference.sh (the shared openclaw-reference tool,
// or $OPENCLAW_REFERENCE, with what installing the 2026.3.x releases needs).
func ReferenceTool() (string, error) {
	ref := os.Getenv("OPENCLAW_REFERENCE")
	if ref == "" {
		ref = filepath.Join(repoDir(), "..", "..", "shared", "tools", "openclaw-reference")
	}
	if _, err := os.Stat(ref); err == nil {
		if wrapper := filepath.Join(repoDir(), "scripts", "reference.sh"); fileExists(wrapper) {
			return wrapper, nil
		}
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
// same order.
func (o Oracle) Run(ctx context.Context, reqs []any) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(reqs))
	err := o.Stream(ctx, reqs, 1, func(i int, ans json.RawMessage) error {
		out[i] = ans
		return nil
	})
	return out, err
}

// Stream sends the requests to jobs driver processes (request i to process i mod jobs) and
// calls fn with each answer as it arrives, from one goroutine per process. A driver that exits
// early or answers fewer lines is an error naming the release and the driver's stderr; so is
// an error of fn, which stops the run.
func (o Oracle) Stream(ctx context.Context, reqs []any, jobs int, fn func(i int, ans json.RawMessage) error) error {
	jobs = max(1, min(jobs, len(reqs)))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, jobs)
	for j := 0; j < jobs; j++ {
		var idx []int
		for i := j; i < len(reqs); i += jobs {
			idx = append(idx, i)
		}
		go func() {
			err := o.stream(ctx, reqs, idx, fn)
			if err != nil {
				cancel()
			}
			errs <- err
		}()
	}
	var first error
	for j := 0; j < jobs; j++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// inFlight is how many requests stream sends a driver ahead of its answers.
const inFlight = 16

// stream runs one driver process over reqs[idx...].
func (o Oracle) stream(ctx context.Context, reqs []any, idx []int, fn func(int, json.RawMessage) error) error {
	// The requests are encoded as the driver reads them, not all up front: 10,000 transcripts
	// times seven targets, base64 inside JSON, came to 10 GiB in memory.
	// Nor may the driver hold them all: Node's readline reads its stdin as fast as the pipe
	// gives it and queues every line, so 10,000 requests sat in each driver's heap (2 GB, the
	// collector thrashing, a 10,000-mutation run of 2026.3.13 not done after 30 minutes). At
	// most inFlight requests are sent ahead of the answers read back.
	pr, pw := io.Pipe()
	defer pr.Close() // unblocks the writer when the driver stops reading
	window := make(chan struct{}, inFlight)
	done := make(chan struct{})
	defer close(done)
	go func() {
		bw := bufio.NewWriterSize(pw, 1<<16)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for _, i := range idx {
			select {
			case window <- struct{}{}:
			case <-done:
				pw.CloseWithError(errors.New("stopped"))
				return
			}
			if err := enc.Encode(reqs[i]); err != nil {
				pw.CloseWithError(fmt.Errorf("request %d: %w", i, err))
				return
			}
			if len(window) == cap(window) || bw.Buffered() > 1<<15 {
				// the driver answers only what it has read: flush before waiting on it
				if err := bw.Flush(); err != nil {
					pw.CloseWithError(err)
					return
				}
			}
		}
		pw.CloseWithError(bw.Flush())
	}()
	script := filepath.Join(repoDir(), "conformance", "oracle", o.Script)
	cmd := harness.Command(ctx, o.Tool, "--node", script)
	cmd.Env = append(os.Environ(), "OPENCLAW_REF_VERSION="+o.Release, "TZ=UTC")
	cmd.Stdin = pr
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("openclaw %s %s: %w", o.Release, o.Script, err)
	}
	n := 0
	var ferr error
	rd := bufio.NewReader(stdout)
	for {
		line, err := rd.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 && ferr == nil {
			if n < len(idx) {
				ferr = fn(idx[n], json.RawMessage(line))
			}
			n++
			select {
			case <-window:
			default:
			}
			if ferr != nil {
				_ = harness.KillGroup(cmd)
			}
		}
		if err != nil {
			break
		}
	}
	werr := cmd.Wait()
	if ferr != nil {
		return ferr
	}
	if werr != nil || n != len(idx) {
		tail := strings.TrimSpace(stderr.String())
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return fmt.Errorf("openclaw %s %s: %d of %d answers (%v): %s", o.Release, o.Script, n, len(idx), werr, tail)
	}
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
