// Package forensics parses OpenClaw gateway logs (context-and-forensics.md §6): the file format
// (tslog JSON lines, openclaw-YYYY-MM-DD.log) and the console/journal text format, and picks out
// the events audit needs: model-fallback decisions, Claude CLI "Session ID … is already in use"
// conflicts, tmux empty-output retries and run completions, embedded run starts, and delivery
// lines naming a messageId.
package forensics

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"io"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/jsonl"
)

// Kind names what an Event is.
type Kind string

const (
	Fallback     Kind = "fallback"     // model fallback decision
	Conflict     Kind = "conflict"     // "Session ID … is already in use"
	EmptyRetry   Kind = "empty-retry"  // tmux.empty-output.retry
	RunComplete  Kind = "run-complete" // tmux.run.complete
	RunStart     Kind = "run-start"    // embedded run start
	Delivery     Kind = "delivery"     // a line naming a delivered messageId
	otherMessage Kind = ""             // anything else (not returned)
)

// Event is one interesting log record.
type Event struct {
	Kind      Kind
	Path      string
	Line      int64
	Time      time.Time // zero when the line has no parseable time
	Subsystem string
	Message   string
	// Fields holds key=value tokens of the console text, or the structured meta of a file
	// record, flattened to strings (fallback: decision, requested, candidate, reason, next,
	// detail; conflict: sessionId; empty-retry: sessionName, launchMode, reason, transcriptPath).
	Fields map[string]string
}

var (
	conflictRE = lazyre.New(`(?i)Session ID (\S+?)[,.;:]? is already in use`)
	kvRE       = lazyre.New(`(\w[\w.-]*)=("(?:[^"\\]|\\.)*"|\S*)`)
	isoRE      = lazyre.New(`^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?`)
	deliveryRE = lazyre.New(`(?i)\b(sent|delivered|delivery ok|send ok|sendMessage ok)\b`)
)

// Parse reads a gateway log stream and calls fn for each interesting event in order. name is
// used only in events and errors. Lines that are neither format are skipped.
func Parse(ctx context.Context, r io.Reader, name string, fn func(Event) error) error {
	rd := jsonl.NewReader(jsonl.ContextReader(ctx, r), jsonl.Options{MaxLine: 16 << 20})
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, l.Num, err)
		}
		if l.Num%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if l.Has(jsonl.FlagTooLong) || l.Has(jsonl.FlagBlank) {
			continue
		}
		ev, ok := parseLine(l.Bytes)
		if !ok {
			continue
		}
		ev.Path, ev.Line = name, l.Num
		if err := fn(ev); err != nil {
			return err
		}
	}
}

// ParseFile opens path (plain, gzip or zstd) and calls Parse.
func ParseFile(ctx context.Context, path string, fn func(Event) error) error {
	f, err := jsonl.Open(path, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	return Parse(ctx, bufio.NewReader(f), path, fn)
}

// parseLine turns one log line into an event.
func parseLine(b []byte) (Event, bool) {
	var ev Event
	if len(b) > 0 && b[0] == '{' {
		if !parseRecord(b, &ev) {
			return ev, false
		}
	} else {
		parseConsole(string(b), &ev)
	}
	tokens(ev.Message, ev.Fields)
	ev.Kind = classify(&ev)
	return ev, ev.Kind != otherMessage
}

// parseRecord reads a file record (tslog: "0" subsystem or message, "1" meta or message, "2"
// message, _meta, time) or a console json-style record (time, subsystem, message, meta...).
func parseRecord(b []byte, ev *Event) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	ev.Fields = map[string]string{}
	str := func(k string) (string, bool) {
		var s string
		if raw, ok := m[k]; ok && json.Unmarshal(raw, &s) == nil {
			return s, true
		}
		return "", false
	}
	meta := func(raw json.RawMessage) {
		var obj map[string]any
		if json.Unmarshal(raw, &obj) != nil {
			return
		}
		for k, v := range obj {
			switch x := v.(type) {
			case string:
				ev.Fields[k] = x
			case float64, bool:
				ev.Fields[k] = fmt.Sprint(x)
			}
		}
	}
	if s, ok := str("message"); ok { // console json style
		ev.Message = s
		ev.Subsystem, _ = str("subsystem")
		meta(b)
	} else {
		zero, _ := str("0")
		var sub struct {
			Subsystem string `json:"subsystem"`
		}
		if strings.HasPrefix(zero, "{") && json.Unmarshal([]byte(zero), &sub) == nil && sub.Subsystem != "" {
			ev.Subsystem = sub.Subsystem
			if s, ok := str("2"); ok {
				ev.Message = s
				meta(m["1"])
			} else if s, ok := str("1"); ok {
				ev.Message = s
			} else {
				meta(m["1"])
			}
		} else {
			ev.Message = zero
			meta(m["1"])
		}
	}
	if t, ok := str("time"); ok {
		ev.Time = parseTime(t)
	}
	if ev.Time.IsZero() {
		var mt struct {
			Date string `json:"date"`
		}
		if raw, ok := m["_meta"]; ok && json.Unmarshal(raw, &mt) == nil {
			ev.Time = parseTime(mt.Date)
		}
	}
	// the structured fallback fields name the same things as the console tokens
	f := ev.Fields
	if f["event"] == "model_fallback_decision" {
		if f["requested"] == "" && f["requestedProvider"] != "" {
			f["requested"] = f["requestedProvider"] + "/" + f["requestedModel"]
		}
		if f["candidate"] == "" && f["candidateProvider"] != "" {
			f["candidate"] = f["candidateProvider"] + "/" + f["candidateModel"]
		}
		if f["next"] == "" {
			f["next"] = "none"
			if f["nextCandidateProvider"] != "" {
				f["next"] = f["nextCandidateProvider"] + "/" + f["nextCandidateModel"]
			}
		}
		if f["detail"] == "" {
			for _, k := range []string{"fallbackStepFromFailureDetail", "errorPreview", "providerErrorMessagePreview"} {
				if f[k] != "" {
					f["detail"] = f[k]
					break
				}
			}
		}
	}
	return true
}

// parseConsole reads "[<time> ][<subsystem>] <message>" with an optional journal prefix.
func parseConsole(s string, ev *Event) {
	ev.Fields = map[string]string{}
	rest := strings.TrimSpace(s)
	if loc := isoRE.FindString(rest); loc != "" {
		ev.Time = parseTime(loc)
		rest = strings.TrimSpace(rest[len(loc):])
	}
	if i := strings.Index(rest, "["); i >= 0 {
		if j := strings.Index(rest[i:], "] "); j > 0 && !strings.ContainsAny(rest[i+1:i+j], " ") {
			ev.Subsystem = rest[i+1 : i+j]
			if ev.Time.IsZero() {
				if loc := isoRE.FindString(strings.TrimSpace(rest[:i])); loc != "" {
					ev.Time = parseTime(loc)
				}
			}
			rest = rest[i+j+2:]
		}
	}
	ev.Message = rest
}

// tokens adds the key=value tokens of a message to fields, without overwriting structured
// fields; detail= takes the rest of the line.
func tokens(msg string, fields map[string]string) {
	set := func(k, v string) {
		if _, ok := fields[k]; !ok {
			fields[k] = v
		}
	}
	if i := strings.Index(msg, " detail="); i >= 0 {
		d := msg[i+len(" detail="):]
		if k := strings.LastIndex(d, " ("); k >= 0 && strings.HasSuffix(d, "s)") && strings.Contains(d[k:], "duplicates suppressed") {
			d = d[:k]
		}
		set("detail", d)
		msg = msg[:i]
	}
	for _, m := range kvRE.FindAllStringSubmatch(msg, -1) {
		v := m[2]
		if len(v) >= 2 && v[0] == '"' {
			v = strings.Trim(v, `"`)
		}
		set(m[1], v)
	}
}

func classify(ev *Event) Kind {
	msg := ev.Message
	switch {
	case ev.Fields["event"] == "model_fallback_decision" || strings.Contains(msg, "model fallback decision"):
		if ev.Fields["decision"] == "" {
			return otherMessage
		}
		return Fallback
	case conflictRE.MatchString(msg):
		ev.Fields["sessionId"] = conflictRE.FindStringSubmatch(msg)[1]
		return Conflict
	case strings.Contains(msg, "tmux.empty-output.retry"):
		return EmptyRetry
	case strings.Contains(msg, "tmux.run.complete"):
		return RunComplete
	case strings.Contains(msg, "embedded run start"):
		return RunStart
	}
	id := ev.Fields["messageId"]
	if id == "" {
		id = ev.Fields["message_id"]
	}
	if id != "" && (deliveryRE.MatchString(msg) || ev.Fields["delivered"] == "true") {
		ev.Fields["messageId"] = id
		return Delivery
	}
	return otherMessage
}

func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000-0700", "2006-01-02 15:04:05.000Z07:00", "2006-01-02T15:04:05", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}
