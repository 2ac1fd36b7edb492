package session

import (
	"fmt"
	"time"
)

// fieldIsString reports whether the header line has a top-level string member key.
func (h *Header) fieldIsString(key string) bool {
	v, ok, _ := GetField(h.Raw, key)
	return ok && len(v) > 0 && v[0] == '"'
}

// LoaderValid reports whether pi's loader accepts h as a header: type "session" and a string
// id (spec §2.11). When the first line that parses is not such a header, pi treats the file as
// empty and rewrites it with a fresh header, losing every entry.
func (h *Header) LoaderValid() bool {
	return h.Type == TypeSession && h.fieldIsString("id")
}

// RepairValid reports whether OpenClaw's file repair accepts h: type "session" and a non-empty
// string id (spec §3.4 step 5). Otherwise the repair writes nothing.
func (h *Header) RepairValid() bool {
	return h.Type == TypeSession && h.fieldIsString("id") && h.ID != ""
}

// StrictProblem returns why the newest OpenClaw agent-core storage would reject h
// ("invalid_session"), or "" when it accepts it: version must be exactly 3, id non-empty,
// timestamp parseable, cwd non-empty, and parentSession a string when present (spec §2.2).
func (h *Header) StrictProblem() string {
	switch v, ok := h.VersionNumber(); {
	case h.Type != TypeSession:
		return "not a session header"
	case !ok:
		return "missing session version"
	case v != CurrentVersion:
		return fmt.Sprintf("unsupported session version %s", jsNumber(v))
	case !h.fieldIsString("id") || h.ID == "":
		return "missing session id"
	case !h.fieldIsString("timestamp") || !parseableTime(h.Timestamp):
		return "invalid session timestamp"
	case !h.fieldIsString("cwd") || h.Cwd == "":
		return "missing session cwd"
	}
	if v, ok, _ := GetField(h.Raw, "parentSession"); ok && (len(v) == 0 || v[0] != '"') {
		return "parentSession is not a string"
	}
	return ""
}

// parseableTime reports whether JavaScript's Date would parse s (ISO-8601 forms).
func parseableTime(s string) bool {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z07", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}
