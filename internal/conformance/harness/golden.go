package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// ErrNotRecorded is returned by Goldens for a request the recording does not hold: the inputs
// or the requests changed since it was recorded (scripts/conformance-record.sh records again).
var ErrNotRecorded = errors.New("request not in the recorded oracle answers")

// Recorder passes requests to a live Caller and keeps every answer, to be saved as goldens.
type Recorder struct {
	Live Caller
	mu   sync.Mutex
	ans  map[string]json.RawMessage
}

// Call implements Caller.
func (r *Recorder) Call(ctx context.Context, req Request) (json.RawMessage, error) {
	ans, err := r.Live.Call(ctx, req)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ans == nil {
		r.ans = map[string]json.RawMessage{}
	}
	r.ans[req.Key()] = ans
	return ans, nil
}

type goldenLine struct {
	Key    string          `json:"key"`
	Answer json.RawMessage `json:"answer"`
}

// Save writes the answers to path as zstd-compressed JSON lines sorted by key, so the same
// answers always make the same file.
func (r *Recorder) Save(path string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.ans))
	for k := range r.ans {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safefile.Replace(path, func(w io.Writer) error {
		zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return err
		}
		enc := json.NewEncoder(zw)
		for _, k := range keys {
			if err := enc.Encode(goldenLine{k, r.ans[k]}); err != nil {
				return err
			}
		}
		return zw.Close()
	})
}

// Goldens answers requests from a recording, without Node.
type Goldens struct {
	Path string
	ans  map[string]json.RawMessage
	mu   sync.Mutex
	used map[string]bool
}

// LoadGoldens reads a recording written by Recorder.Save.
func LoadGoldens(path string) (*Goldens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer zr.Close()
	g := &Goldens{Path: path, ans: map[string]json.RawMessage{}, used: map[string]bool{}}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 256<<20)
	for n := 1; sc.Scan(); n++ {
		var l goldenLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		g.ans[l.Key] = l.Answer
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// Call implements Caller.
func (g *Goldens) Call(_ context.Context, req Request) (json.RawMessage, error) {
	k := req.Key()
	ans, ok := g.ans[k]
	if !ok {
		return nil, fmt.Errorf("%w (%s, key %s)", ErrNotRecorded, g.Path, k[:12])
	}
	g.mu.Lock()
	g.used[k] = true
	g.mu.Unlock()
	return ans, nil
}

// Unused is the number of recorded answers no request asked for (a recording that holds more
// than the inputs need is stale too).
func (g *Goldens) Unused() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.ans) - len(g.used)
}
