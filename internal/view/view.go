// Package view writes offline HTML pages of OpenClaw session data: one page per transcript
// (the entry tree with its branches and active path, messages, tool calls paired with their
// results, compactions, model fallbacks, audit findings, a token timeline and what OpenClaw
// would send to a chosen provider) and, for a sessions dir or a state dir, an index page with
// a sessions table and disk use per agent, linking to the session pages written beside it.
//
// The page data comes from the other libraries, never from a parser of its own: session's
// tree index, audit's findings, replay's output, retention's plan and store's inventory.
// Pages are self-contained (inline CSS and script, no network, a CSP that forbids fetching
// anything) and stay small and fast at any size: the data and the long texts are gzip'ed and
// embedded as base64, decoded by the page with DecompressionStream, and the lists render only
// the rows on screen.
package view

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/audit"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// Options say what Write writes.
type Options struct {
	Out    string // the page file for a transcript ("" : <name>.html in OutDir or ".")
	OutDir string // where the pages go ("" : "." for a transcript, "clawdoctor-view" for a dir)
	Redact bool   // keep only structure (see redact.go): every other text, number, key and name replaced
	// Replays are the targets of the "what OpenClaw would send" view; nil means the session's
	// own model plus DefaultReplays, an empty slice none.
	Replays []Target
	Logs    []string // gateway logs for audit (fallback decisions, deliveries, CLI conflicts)
	Config  string   // openclaw.json for the cleanup settings ("" : found as cleanup finds it)
	// Agent and AllAgents narrow a state dir as the other commands do; a state dir shows all
	// of its agents by default.
	Agent string
	Now   time.Time // the clock for the cleanup plan and lock ages; zero means time.Now
	// Page size bounds; zero means the Default* constants.
	MaxText    int   // bytes of one text kept in full
	TextBudget int64 // bytes of full texts per page (before compression)
	Preview    int   // characters of a text in the page data itself
}

// Page is one page written.
type Page struct {
	Path     string `json:"path"`
	Source   string `json:"source"`
	Entries  int    `json:"entries"`
	Findings int    `json:"findings"`
	Bytes    int64  `json:"bytes"`
}

// Result lists what Write wrote.
type Result struct {
	Index    string   `json:"index,omitempty"` // the state-dir page, "" for a transcript
	Pages    []Page   `json:"pages"`
	Failed   []string `json:"failed,omitempty"` // transcripts whose page could not be written, with why
	Redacted bool     `json:"redacted"`
}

// Main returns the page to open: the index page, else the only session page.
func (r *Result) Main() string {
	if r.Index != "" {
		return r.Index
	}
	if len(r.Pages) > 0 {
		return r.Pages[0].Path
	}
	return ""
}

// Errors callers branch on (usage mistakes, refused outputs).
var (
	ErrOutForDir = errors.New("--out names one page, but a directory gives an index and a page per session")
	ErrNotHTML   = errors.New("the output file must end in .html")
	ErrNotOurs   = errors.New("refusing to overwrite a file clawdoctor view did not write")
	ErrInside    = errors.New("refusing to write pages inside a sessions dir")
)

// generatorMark is in every page's head; an existing output is replaced only when it has it.
const generatorMark = `<meta name="generator" content="clawdoctor view">`

// Write writes the page(s) of path: a transcript (plain, gzip or zstd) gives one session
// page; a sessions dir, a sessions.json or a state dir gives an index page and one page per
// transcript. It only reads path.
func Write(ctx context.Context, path string, o Options) (*Result, error) {
	o = o.withDefaults()
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if _, db := dbTarget(path); st.IsDir() || filepath.Base(path) == "sessions.json" || db {
		if o.Out != "" {
			return nil, ErrOutForDir
		}
		return writeState(ctx, path, o)
	}
	out := o.Out
	if out == "" {
		dir := o.OutDir
		if dir == "" {
			dir = "."
		}
		out = filepath.Join(dir, pageName(path))
	}
	if !strings.HasSuffix(strings.ToLower(out), ".html") {
		return nil, fmt.Errorf("%s: %w", out, ErrNotHTML)
	}
	if err := checkOutput(out); err != nil {
		return nil, err
	}
	in, red := single(ctx, path, o)
	p, err := writeSessionFile(ctx, out, in, o, red)
	if err != nil {
		return nil, err
	}
	return &Result{Pages: []Page{p}, Redacted: o.Redact}, nil
}

// WriteSession writes the page of one transcript to w. It runs audit itself (with
// Options.Logs); Write is the same with the output file handled.
func WriteSession(ctx context.Context, w io.Writer, path string, o Options) (Page, error) {
	o = o.withDefaults()
	in, red := single(ctx, path, o)
	return renderSession(ctx, w, in, o, red)
}

// single is the input of a page for one transcript given by the user, with its audit
// started; a redacted page names the file only.
func single(ctx context.Context, path string, o Options) (sessionInput, *redactor) {
	in := sessionInput{Path: path, Display: path, Findings: startAudit(ctx, path, o)}
	var red *redactor
	if o.Redact {
		red, in.Display = newRedactor(), filepath.Base(path)
	}
	return in, red
}

// startAudit audits path (with Options.Logs) in a goroutine, beside the page build, and
// returns a func that waits for its findings.
func startAudit(ctx context.Context, path string, o Options) func() ([]audit.Finding, error) {
	type out struct {
		fs  []audit.Finding
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := audit.Run(ctx, []string{path}, audit.Options{Now: o.Now, Logs: o.Logs}, nil)
		switch {
		case err != nil:
			ch <- out{err: err}
		case len(res.Unreadable) > 0:
			ch <- out{err: fmt.Errorf("audit could not read %s", strings.Join(res.Unreadable, ", "))}
		default:
			ch <- out{fs: res.Findings}
		}
	}()
	var once sync.Once
	var r out
	return func() ([]audit.Finding, error) {
		once.Do(func() { r = <-ch })
		return r.fs, r.err
	}
}

func renderSession(ctx context.Context, w io.Writer, in sessionInput, o Options, red *redactor) (Page, error) {
	d, tx, err := buildSession(ctx, in, o, red)
	if err != nil {
		return Page{}, err
	}
	js, err := marshal(d)
	if err != nil {
		return Page{}, err
	}
	data, err := pack(js)
	if err != nil {
		return Page{}, err
	}
	chunks, err := tx.blocks()
	if err != nil {
		return Page{}, err
	}
	cw := &countWriter{w: w}
	if err := writePage(cw, "session", safeTitle("session "+d.Title), data, chunks); err != nil {
		return Page{}, err
	}
	return Page{Source: in.Display, Entries: len(d.Entries), Findings: len(d.Findings), Bytes: cw.n}, nil
}

func writeSessionFile(ctx context.Context, out string, in sessionInput, o Options, red *redactor) (Page, error) {
	var p Page
	err := safefile.Replace(out, func(w io.Writer) error {
		var err error
		p, err = renderSession(ctx, w, in, o, red)
		return err
	})
	p.Path = out
	return p, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// pageName is the page file name of a transcript: its name without the .jsonl (and .gz,
// .zst) suffix, plus .html.
func pageName(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".zst", ".gz"} {
		base = strings.TrimSuffix(base, ext)
	}
	base = strings.Replace(base, ".jsonl", "", 1)
	return base + ".html"
}

// checkOutput refuses an output file that exists and is not one of our pages, and one that
// would land in a sessions dir (one holding a sessions.json, or agents/<id>/sessions).
func checkOutput(out string) error {
	dir := absPath(filepath.Dir(out))
	if exists(filepath.Join(dir, "sessions.json")) || (filepath.Base(dir) == "sessions" && filepath.Base(filepath.Dir(filepath.Dir(dir))) == "agents") {
		return fmt.Errorf("%s: %w (choose another --out or --out-dir)", out, ErrInside)
	}
	st, err := os.Lstat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() || !ours(out) {
		return fmt.Errorf("%s: %w", out, ErrNotOurs)
	}
	return nil
}

// ours reports whether the file at p starts like one of our pages.
func ours(p string) bool {
	f, err := safefile.Open(p) // a FIFO under the output name must not block
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2048)
	n, _ := io.ReadFull(bufio.NewReader(f), head)
	return bytes.Contains(head[:n], []byte(generatorMark))
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
