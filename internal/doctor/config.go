package doctor

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/json5edit"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// legacyKey is a config key OpenClaw no longer reads (store.md §3.1, §5 rows 1–2).
type legacyKey struct {
	path []string
	msg  string
}

var legacyKeys = []legacyKey{
	{[]string{"session", "maintenance", "rotateBytes"}, "session.maintenance.rotateBytes is deprecated and ignored (the store is no longer rotated); a SQLite-era OpenClaw rejects it"},
	{[]string{"session", "parentForkMaxTokens"}, "session.parentForkMaxTokens was removed; parent fork sizing is automatic"},
	{[]string{"session", "maintenance", "pruneDays"}, "session.maintenance.pruneDays is deprecated; use pruneAfter (a duration such as \"7d\")"},
	{[]string{"session", "idleMinutes"}, "session.idleMinutes is the legacy idle-reset key; the current one is session.reset {mode: \"idle\", idleMinutes}"},
}

// checkConfig reports legacy keys and plans a comment-preserving rewrite of the config.
func checkConfig(_ context.Context, st *state) ([]Problem, error) {
	if st.configPath == "" {
		return nil, nil
	}
	src, err := config.ReadFile(st.configPath)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil { // not a regular file, no permission, over the cap: a failed check
		return []Problem{{Check: "config.unreadable", Severity: "error", Path: st.configPath,
			Message: fmt.Sprintf("the config cannot be read (%v): its settings are not checked and nothing in it is fixed", err),
			Gate:    GateNone, failed: err.Error()}}, nil
	}
	if err := json5edit.Valid(src); err != nil {
		return []Problem{{Check: "config.invalid", Severity: "error", Path: st.configPath,
			Message: fmt.Sprintf("the config does not parse as JSON5 (%v); OpenClaw will refuse to start", err),
			Gate:    GateNone}}, nil
	}
	var probs []Problem
	for _, k := range legacyKeys {
		raw, ok, err := json5edit.Get(src, k.path...)
		if err != nil || !ok {
			continue
		}
		name := strings.Join(k.path, ".")
		p := Problem{Check: "config.legacy-key", Severity: "warning", Path: st.configPath,
			Message:  fmt.Sprintf("%s (%s: %s)", k.msg, name, raw),
			Gate:     GateFix,
			Evidence: map[string]any{"key": name, "value": raw}}
		edit, fix := planKeyEdit(src, k.path, raw)
		if fix == nil {
			p.Fix = ""
			p.Gate = GateNone
			p.Edit = edit
			p.Message += "; no safe automatic edit: " + edit
		} else {
			p.Fix = edit
			p.apply = func(*Backups) (string, error) { return "", st.editConfig(fix) }
			p.editsConfig = true
		}
		probs = append(probs, p)
	}
	return probs, nil
}

// planKeyEdit returns a description of the edit and a function that performs it on the current
// text (re-read at apply time, so several edits compose), or nil when no safe edit exists.
func planKeyEdit(src []byte, path []string, raw string) (string, func([]byte) ([]byte, error)) {
	name := strings.Join(path, ".")
	switch name {
	case "session.maintenance.pruneDays":
		if _, ok, _ := json5edit.Get(src, "session", "maintenance", "pruneAfter"); ok {
			return "remove " + name + " (pruneAfter is set and wins)", deleteKey(path)
		}
		days := strings.Trim(raw, `"'`)
		return fmt.Sprintf("replace %s: %s with pruneAfter: \"%sd\"", name, raw, days), func(b []byte) ([]byte, error) {
			b, err := json5edit.Set(b, fmt.Sprintf("%q", days+"d"), "session", "maintenance", "pruneAfter")
			if err != nil {
				return nil, err
			}
			return json5edit.Delete(b, path...)
		}
	case "session.idleMinutes":
		reset, ok, err := json5edit.Get(src, "session", "reset")
		if err != nil {
			return "move " + name + " into session.reset by hand", nil
		}
		if !ok {
			return fmt.Sprintf("replace %s: %s with reset: { mode: \"idle\", idleMinutes: %s }", name, raw, raw), func(b []byte) ([]byte, error) {
				b, err := json5edit.Set(b, fmt.Sprintf(`{ mode: "idle", idleMinutes: %s }`, raw), "session", "reset")
				if err != nil {
					return nil, err
				}
				return json5edit.Delete(b, path...)
			}
		}
		if !strings.HasPrefix(strings.TrimSpace(reset), "{") {
			return fmt.Sprintf("session.reset is not an object: set session.reset.idleMinutes to %s by hand and remove %s", raw, name), nil
		}
		if _, has, _ := json5edit.Get(src, "session", "reset", "idleMinutes"); has {
			return "remove " + name + " (session.reset.idleMinutes is set and wins)", deleteKey(path)
		}
		return fmt.Sprintf("move %s: %s to session.reset.idleMinutes", name, raw), func(b []byte) ([]byte, error) {
			b, err := json5edit.Set(b, raw, "session", "reset", "idleMinutes")
			if err != nil {
				return nil, err
			}
			return json5edit.Delete(b, path...)
		}
	}
	return "remove " + name, deleteKey(path)
}

func deleteKey(path []string) func([]byte) ([]byte, error) {
	return func(b []byte) ([]byte, error) { return json5edit.Delete(b, path...) }
}

// editConfig applies one edit to the config text held in memory; flushConfig writes the
// result once, so several legacy keys make one backup and one atomic write.
func (st *state) editConfig(edit func([]byte) ([]byte, error)) error {
	if st.configText == nil {
		src, err := config.ReadFile(st.configPath)
		if err != nil {
			return err
		}
		st.configText, st.configOrig = src, src
	}
	out, err := edit(st.configText)
	if err != nil {
		return fmt.Errorf("%s: %w", st.configPath, err)
	}
	if err := json5edit.Valid(out); err != nil {
		return fmt.Errorf("%s: edit would break the config: %w", st.configPath, err)
	}
	st.configText = out
	return nil
}

// flushConfig writes the edited config after keeping its bytes in the backup dir. It refuses
// when the file changed since doctor read it.
func flushConfig(st *state, b *Backups, probs []Problem) {
	if st.configText == nil {
		return
	}
	backup, err := func() (string, error) {
		cur, err := config.ReadFile(st.configPath)
		if err != nil {
			return "", err
		}
		if string(cur) != string(st.configOrig) {
			return "", fmt.Errorf("%s changed while doctor ran; nothing written", st.configPath)
		}
		backup, err := b.Copy(st.configPath)
		if err != nil {
			return "", err
		}
		return backup, safefile.WriteFile(st.configPath, st.configText)
	}()
	for i := range probs {
		p := &probs[i]
		if !p.editsConfig || p.Status != StatusFixed {
			continue
		}
		p.Backup = backup
		if err != nil {
			p.Status = StatusFailed
			p.Error = err.Error()
		}
	}
}
