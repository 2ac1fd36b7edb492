// Package harness runs clawdoctor's engines and the real OpenClaw on the same inputs and
// reports, per input, whether they agree. An engine (repair, replay, compaction, ...) brings
// its Node driver under internal/conformance/oracle/ and its comparison code (an Engine); the harness
// brings the rest: the oracle processes (many requests per Node process, several processes in
// parallel), the inputs (corpus, fixtures, the provider × feature matrix, seeded mutations, any
// paths given), recording the oracle's answers as goldens and replaying them offline, and the
// per-input report with its count line.
package harness

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Request is one request to a driver: a JSON object. Its key for goldens is the SHA-256 of its
// JSON encoding (map keys sorted), so the same request always has the same key.
type Request map[string]any

// Key returns the request's golden key.
func (r Request) Key() string {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // requests are built from plain values
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Caller answers driver requests: the live Oracle, a Recorder around it, or recorded goldens.
type Caller interface {
	Call(ctx context.Context, req Request) (json.RawMessage, error)
}

// Root is the repository root: the nearest directory above the working directory with a go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

// Reference is the openclaw-reference tool: $OPENCLAW_REFERENCE, else
// ../shared/tools/openclaw-reference beside the repository.
func Reference() (string, error) {
	if p := os.Getenv("OPENCLAW_REFERENCE"); p != "" {
		return filepath.Abs(p)
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, "..", "shared", "tools", "openclaw-reference")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("the OpenClaw reference tool is not at %s (set OPENCLAW_REFERENCE)", p)
	}
	return p, nil
}

// Oracle is a pool of Node processes running one driver against one OpenClaw release.
type Oracle struct {
	Release string
	free    chan *proc
	procs   []*proc
	seq     atomic.Int64
	alive   atomic.Int32
	dead    chan struct{} // closed when no process is left
	lastErr atomic.Value  // error: why the last process was lost
}

type proc struct {
	cmd    *exec.Cmd
	in     *bufio.Writer
	stdin  io.Closer
	out    *bufio.Reader
	stderr *tail
}

// tail keeps the last few KiB written to it (a driver's stderr, for error messages).
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 8<<10 {
		t.b = t.b[len(t.b)-8<<10:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// Start runs procs copies of driver (a file under internal/conformance/oracle/) against release. The
// reference tool installs the release into its cache on first use; when that or the driver
// fails, the error says so with the tool's last output, so CI fails with a clear message.
func Start(ctx context.Context, driver, release string, procs int) (*Oracle, error) {
	ref, err := Reference()
	if err != nil {
		return nil, err
	}
	root, err := Root()
	if err != nil {
		return nil, err
	}
	script := filepath.Join(root, "internal", "conformance", "oracle", driver)
	o := &Oracle{Release: release, free: make(chan *proc, procs), dead: make(chan struct{})}
	for i := 0; i < procs; i++ {
		cmd := Command(ctx, ref, "--node", script)
		cmd.Env = append(os.Environ(), "OPENCLAW_REF_VERSION="+release, "TZ=UTC")
		p := &proc{cmd: cmd, stderr: &tail{}}
		cmd.Stderr = p.stderr
		w, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		r, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		p.stdin, p.in, p.out = w, bufio.NewWriterSize(w, 1<<20), bufio.NewReaderSize(r, 1<<20)
		if err := cmd.Start(); err != nil {
			o.Close()
			return nil, fmt.Errorf("start %s: %w", ref, err)
		}
		o.procs = append(o.procs, p)
		o.alive.Add(1)
		o.free <- p
	}
	// The first answer proves the install and the driver; every process must say the release.
	for range o.procs {
		raw, err := o.Call(ctx, Request{"op": "version"})
		if err != nil {
			o.Close()
			return nil, fmt.Errorf("OpenClaw %s could not be installed or run by %s: %w", release, ref, err)
		}
		var v struct{ Version string }
		if json.Unmarshal(raw, &v) != nil || v.Version != release {
			o.Close()
			return nil, fmt.Errorf("the reference ran OpenClaw %q, not %s", v.Version, release)
		}
	}
	return o, nil
}

// Call sends req to a free process and returns its answer (without the id).
func (o *Oracle) Call(ctx context.Context, req Request) (json.RawMessage, error) {
	var p *proc
	select {
	case p = <-o.free:
	case <-o.dead:
		return nil, fmt.Errorf("no driver process left: %v", o.lastErr.Load())
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	ans, err := p.call(o.seq.Add(1), req)
	var de *driverError
	if err != nil && !errors.As(err, &de) {
		// A process whose stream broke is not reused: it may be out of step.
		o.lastErr.Store(err)
		p.stdin.Close()
		if o.alive.Add(-1) == 0 {
			close(o.dead)
		}
		return nil, err
	}
	o.free <- p
	return ans, err
}

func (p *proc) call(id int64, req Request) (json.RawMessage, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(p.in, `{"id":%d,`, id)
	p.in.Write(body[1:])
	p.in.WriteByte('\n')
	if err := p.in.Flush(); err != nil {
		return nil, fmt.Errorf("driver stopped: %v: %s", err, p.stderr)
	}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("driver stopped: %v: %s", err, p.stderr)
	}
	var env struct {
		ID    int64  `json:"id"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(line, &env); err != nil || env.ID != id {
		return nil, fmt.Errorf("driver answered out of step (%v): %.200s", err, line)
	}
	if env.Error != "" {
		return nil, &driverError{env.Error}
	}
	return stripID(line), nil
}

// driverError is an error the driver reported for one request; the process goes on.
type driverError struct{ msg string }

func (e *driverError) Error() string { return "driver: " + e.msg }

// stripID removes the leading "id" member the driver echoes.
func stripID(line []byte) json.RawMessage {
	line = bytes.TrimSpace(line)
	if i := bytes.IndexByte(line, ','); i > 0 && bytes.HasPrefix(line, []byte(`{"id":`)) {
		return append([]byte("{"), line[i+1:]...)
	}
	return line
}

// Close ends the processes (their stdin closes, they finish and exit).
func (o *Oracle) Close() error {
	var first error
	for _, p := range o.procs {
		p.stdin.Close()
	}
	for _, p := range o.procs {
		if err := p.cmd.Wait(); err != nil && first == nil {
			first = fmt.Errorf("driver exited: %v: %s", err, p.stderr)
		}
	}
	return first
}
