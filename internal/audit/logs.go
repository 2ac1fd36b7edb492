package audit

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/forensics"
)

// incidentWindow links an empty-output retry, a session-id conflict and the fallback it caused.
const incidentWindow = 10 * time.Minute

// CheckLog audits one gateway log: CLI session-id conflicts with the retry and fallback around
// them, and fallback decisions. Delivery lines are returned for the batching check.
func CheckLog(ctx context.Context, path string) ([]Finding, map[string]int64, error) {
	var out []Finding
	deliveries := map[string]int64{}
	var lastRetry *forensics.Event
	open := -1 // index of the last conflict incident, waiting for its fallback decision
	var openAt time.Time
	err := forensics.ParseFile(ctx, path, func(ev forensics.Event) error {
		within := func(t time.Time) bool {
			return !t.IsZero() && !ev.Time.IsZero() && ev.Time.Sub(t) >= 0 && ev.Time.Sub(t) <= incidentWindow
		}
		switch ev.Kind {
		case forensics.Delivery:
			if !ev.Time.IsZero() {
				deliveries[ev.Fields["messageId"]] = ev.Time.UnixMilli()
			}
		case forensics.EmptyRetry:
			e := ev
			lastRetry = &e
		case forensics.Conflict:
			out = append(out, conflictFinding(ev, lastRetry, within))
			open, openAt = len(out)-1, ev.Time
		case forensics.Fallback:
			f := ev.Fields
			conflictDetail := strings.Contains(strings.ToLower(f["detail"]), "session-id conflict") ||
				conflictRE(f["detail"])
			switch {
			case open >= 0 && (openAt.IsZero() || within(openAt)) && f["decision"] == "candidate_failed":
				attachFallback(&out[open], ev)
				open = -1
			case conflictDetail || (f["reason"] == "session_expired" && lastRetry != nil && within(lastRetry.Time)):
				out = append(out, conflictFinding(ev, lastRetry, within))
				attachFallback(&out[len(out)-1], ev)
				open = -1
			}
			if f["decision"] == "candidate_failed" && f["next"] != "" && f["next"] != "none" {
				out = append(out, newFinding("fallback.chain", path, ev.Line, "", fmt.Sprintf("gateway fell back from %s to %s (reason %s%s)",
					f["candidate"], f["next"], orUnknown(f["reason"]), detailSuffix(f["detail"])), "",
					map[string]any{"from": f["candidate"], "to": f["next"], "reason": orUnknown(f["reason"]), "requested": f["requested"], "detail": f["detail"], "time": fmtTime(ev.Time), "sessionId": f["sessionId"]}))
			}
		}
		return nil
	})
	return out, deliveries, err
}

func conflictRE(s string) bool { return strings.Contains(strings.ToLower(s), "is already in use") }

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func detailSuffix(d string) string {
	if d == "" {
		return ""
	}
	return ": " + preview(d, 120)
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

// conflictFinding builds a cli.session-id-conflict finding at ev, with the empty-output retry
// that preceded it when it is close enough.
func conflictFinding(ev forensics.Event, retry *forensics.Event, within func(time.Time) bool) Finding {
	evd := map[string]any{"time": fmtTime(ev.Time)}
	id := ev.Fields["sessionId"]
	var story []string
	if retry != nil && within(retry.Time) {
		r := retry.Fields
		stale := strings.TrimSuffix(filepath.Base(r["transcriptPath"]), ".jsonl")
		if id == "" && stale != "" && stale != "(not-discovered)" {
			id = stale
		}
		evd["retry"] = map[string]any{"line": retry.Line, "time": fmtTime(retry.Time), "reason": r["reason"], "launchMode": r["launchMode"],
			"sessionName": r["sessionName"], "transcriptPath": r["transcriptPath"]}
		story = append(story, fmt.Sprintf("an empty-output retry at line %d (%s, launchMode=%s) started Claude fresh with the stale session id", retry.Line, r["reason"], r["launchMode"]))
	}
	if id != "" {
		evd["cliSessionId"] = id
	}
	story = append(story, fmt.Sprintf("line %d: Claude refused it because its transcript already exists (\"Session ID … is already in use\")", ev.Line))
	msg := "Claude CLI session-id conflict: " + strings.Join(story, "; ")
	return newFinding("cli.session-id-conflict", ev.Path, ev.Line, "", msg,
		"Clear the stale binding (clawdoctor doctor --fix) and update the tmux backend fork (#83011)", evd)
}

// attachFallback adds the fallback decision a conflict caused, and says when it was misread
// as a timeout.
func attachFallback(f *Finding, ev forensics.Event) {
	fl := ev.Fields
	fb := map[string]any{"line": ev.Line, "time": fmtTime(ev.Time), "from": fl["candidate"], "to": fl["next"], "reason": orUnknown(fl["reason"]), "detail": fl["detail"]}
	f.Evidence["fallback"] = fb
	// the fork classifies a detected conflict as session_expired; a timeout (or no reason) means
	// the conflict went unnoticed and the run waited for the turn timeout
	misread := fl["reason"] == "timeout" || fl["reason"] == "unknown" || fl["reason"] == ""
	f.Evidence["misreadAsTimeout"] = misread
	what := fmt.Sprintf("; it caused a model fallback from %s to %s at line %d (reason %s)", fl["candidate"], fl["next"], ev.Line, orUnknown(fl["reason"]))
	if misread {
		what += ", which reads as a timeout although the real cause was the session-id conflict"
	}
	f.Message += what
	if f.Line == 0 {
		f.Line = ev.Line
	}
}
