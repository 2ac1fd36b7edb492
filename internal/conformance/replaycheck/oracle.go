// Package replaycheck checks clawdoctor's replay and compaction engines against the real
// OpenClaw: it builds requests for the Node drivers in internal/conformance/oracle, runs them through
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
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/conformance/harness"
)

// DefaultRelease is the release the engines follow by default: the newest JSONL-era one.
const DefaultRelease = "2026.7.35"

// RecordedReleases are the verified releases, whose oracle answers are recorded under testdata/.
var RecordedReleases = []string{"2026.3.13", "2026.4.24", "2026.6.11", "2026.7.35"}

// Oracle runs one Node driver of internal/conformance/oracle under one OpenClaw release.
type Oracle struct {
	Tool    string // the openclaw-reference script
	Release string // OPENCLAW_REF_VERSION
	Script  string // driver file name in internal/conformance/oracle, e.g. "replay.mjs"
	// Stall is how long a driver may go without answering before it is killed and its
	// request answered with Stalled (0: DefaultStall).
	Stall time.Duration
}

// DefaultStall is Oracle.Stall's default: the slowest answer seen in the 10,000-mutation runs
// took a few seconds; an answer 2 minutes late is a driver that will never answer.
const DefaultStall = 2 * time.Minute

// startupGrace is added to the stall timeout for a driver's first answer.
const startupGrace = 3 * time.Minute

// Stalled is the answer stream gives a request its driver did not answer within Oracle.Stall
// (OpenClaw 2026.3.13 and 2026.4.24 loop forever walking a parentId cycle, see
// DeliberateCycleHang). No driver answer has this member.
const Stalled = `{"stalled":true}`

// IsStalled reports whether ans is Stalled.
func IsStalled(ans json.RawMessage) bool { return string(ans) == Stalled }

// ErrNoReference is returned when the reference tool cannot be found.
var ErrNoReference = errors.New("openclaw-reference not found")

// repoDir is the module root (this file is internal/conformance/replaycheck/oracle.go).
func repoDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
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

// stream runs a driver process over reqs[idx...]. A driver that stalls on a request is
// killed, the request answered Stalled, and a new driver takes the rest.
func (o Oracle) stream(ctx context.Context, reqs []any, idx []int, fn func(int, json.RawMessage) error) error {
	for len(idx) > 0 {
		n, err := o.streamOnce(ctx, reqs, idx, fn)
		if !errors.Is(err, errStalled) {
			return err
		}
		if err := fn(idx[n], json.RawMessage(Stalled)); err != nil {
			return err
		}
		idx = idx[n+1:]
	}
	return nil
}

var errStalled = errors.New("driver stalled")

// streamOnce runs one driver process over reqs[idx...]. When the driver stalls it returns
// errStalled and how many requests it answered.
func (o Oracle) streamOnce(ctx context.Context, reqs []any, idx []int, fn func(int, json.RawMessage) error) (int, error) {
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
	var stopOnce sync.Once
	// stop releases the writer (it may wait on the window for answers that will not come) and
	// ends the copy into the driver's stdin, which cmd.Wait waits for: without it a killed
	// driver left Wait, the writer and the copier waiting on each other.
	stop := func() {
		stopOnce.Do(func() {
			close(done)
			pr.Close()
		})
	}
	defer stop()
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
	script := filepath.Join(repoDir(), "internal", "conformance", "oracle", o.Script)
	cmd := harness.Command(ctx, o.Tool, "--node", script)
	cmd.Env = append(os.Environ(), "OPENCLAW_REF_VERSION="+o.Release, "TZ=UTC")
	cmd.Stdin = pr
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("openclaw %s %s: %w", o.Release, o.Script, err)
	}
	// The driver answers one request at a time: no answer for Stall while it has one means
	// it is stuck on it (a synchronous loop in OpenClaw cannot be interrupted from inside).
	stall := o.Stall
	if stall <= 0 {
		stall = DefaultStall
	}
	var stalled atomic.Bool
	watchdog := time.AfterFunc(stall, func() {
		stalled.Store(true)
		_ = harness.KillGroup(cmd)
	})
	defer watchdog.Stop()
	n := 0
	var ferr error
	rd := bufio.NewReader(stdout)
	for {
		// The first answer also waits for the driver's start-up (9 s for 2026.3.13 on a quiet
		// machine, over 30 s under load: with --stall 30s the first request of a run was
		// answered Stalled, mutation 129 of seed 6).
		if n == 0 {
			watchdog.Reset(stall + startupGrace)
		} else {
			watchdog.Reset(stall)
		}
		line, err := rd.ReadBytes('\n')
		watchdog.Stop()
		if err != nil && len(line) > 0 {
			// no newline: the driver died (or was killed as stalled) while writing its
			// answer, and half an answer is none (it failed a 2026.4.24 run under load:
			// "unexpected end of JSON input")
			line = nil
		}
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
	stop()
	werr := cmd.Wait()
	if ferr != nil {
		return n, ferr
	}
	if stalled.Load() {
		if n < len(idx) {
			return n, errStalled
		}
		return n, nil // every answer in, killed while slow to exit
	}
	if werr != nil || n != len(idx) {
		tail := strings.TrimSpace(stderr.String())
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return n, fmt.Errorf("openclaw %s %s: %d of %d answers (%v): %s", o.Release, o.Script, n, len(idx), werr, tail)
	}
	return n, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
