package repair

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/safefile"
	"github.com/clawdoctor/clawdoctor/internal/store"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// StoreCounts are the counters of a sessions.json repair.
type StoreCounts struct {
	SalvagedEntries int `json:"salvagedEntries,omitempty"` // entries kept from a store that did not parse
	DroppedEntries  int `json:"droppedEntries,omitempty"`  // damaged regions that held no recoverable entry
	RebuiltEntries  int `json:"rebuiltEntries,omitempty"`  // entries recreated from transcripts (--rebuild-store)
}

func (c *StoreCounts) add(o StoreCounts) {
	c.SalvagedEntries += o.SalvagedEntries
	c.DroppedEntries += o.DroppedEntries
	c.RebuiltEntries += o.RebuiltEntries
}

// StoreMember is one top-level member of a sessions.json: key and value tokens as in the file.
type StoreMember struct {
	Key, Value []byte
}

// SalvageStore reads the members of a sessions.json that does not parse, entry by entry.
// A member whose value is damaged is skipped up to the next line that starts a top-level key
// the way OpenClaw writes them (two spaces and a quote), so one bad entry or a garbage tail
// costs only what is damaged. It returns the members kept and the damaged regions skipped.
func SalvageStore(data []byte) (members []StoreMember, damaged []string) {
	var sc jsonl.Scanner
	i := skipSpace(data, 0)
	resync := func(from int, why string) int {
		damaged = append(damaged, fmt.Sprintf("byte %d: %s", from, why))
		k := bytes.Index(data[min(from+1, len(data)):], []byte("\n  \""))
		if k < 0 {
			return len(data)
		}
		return min(from+1, len(data)) + k + 3
	}
	if i < len(data) && data[i] == '{' {
		i++
	} else {
		i = resync(i, "store does not start with {")
	}
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			if len(damaged) == 0 {
				damaged = append(damaged, fmt.Sprintf("byte %d: truncated (no closing })", i))
			}
			return members, damaged
		}
		switch data[i] {
		case '}':
			if j := skipSpace(data, i+1); j < len(data) {
				damaged = append(damaged, fmt.Sprintf("byte %d: garbage after the closing }", j))
			}
			return members, damaged
		case ',':
			i++
			continue
		}
		if data[i] != '"' {
			i = resync(i, "expected a key")
			continue
		}
		k1 := jsonl.StringEnd(data, i)
		if k1 < 0 {
			i = resync(i, "damaged key")
			continue
		}
		j := skipSpace(data, k1)
		if j >= len(data) || data[j] != ':' {
			i = resync(i, "expected : after key "+preview(data[i:k1]))
			continue
		}
		j = skipSpace(data, j+1)
		v1 := sc.Value(data, j)
		if v1 < 0 {
			i = resync(i, "damaged entry "+preview(data[i:k1]))
			continue
		}
		members = append(members, StoreMember{Key: data[i:k1], Value: data[j:v1]})
		i = v1
	}
}

// composeStore writes members as one compact JSON object and formats it the way OpenClaw
// writes sessions.json (JSON.stringify(store, null, 2), no trailing newline).
func composeStore(members []StoreMember) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.Key)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return jsonobj.Stringify(b.Bytes(), "  ")
}

var safeSessionID = lazyre.New(`(?i)^[a-z0-9][a-z0-9._-]{0,127}$`)

// RepairStore checks the sessions.json of a sessions dir: a store that does not parse is
// salvaged entry by entry (with a backup), and with opts.RebuildStore transcripts no entry
// references get an entry again (key "agent:<agent>:recovered:<name>", with sessionId,
// sessionFile, updatedAt from the last entry's timestamp and sessionStartedAt from the header).
func RepairStore(ctx context.Context, dir, agent string, opts Options) FileResult {
	path := filepath.Join(dir, "sessions.json")
	res := FileResult{Path: path, Kind: "store"}
	if why := refusal(dir, "", Options{FollowSymlinks: opts.FollowSymlinks, Force: true}); why != "" {
		res.Status, res.Reason = StatusSkipped, why // SQLite era, symlink: even a dry run says so
		return res
	}
	data, err := store.ReadStoreFile(ctx, path)
	exists := err == nil
	if err != nil && !os.IsNotExist(err) {
		res.Status, res.Reason = StatusFailed, err.Error()
		if safefile.Unreadable(err) {
			res.Status, res.Reason = StatusSkipped, "unreadable: "+err.Error()
		}
		return res
	}
	res.BytesBefore, res.BytesAfter = int64(len(data)), int64(len(data))
	if !exists && !opts.RebuildStore {
		res.Status, res.Reason = StatusClean, "no sessions.json"
		return res
	}
	var members []StoreMember
	var reasons []string
	changed := false
	if exists {
		obj, perr := jsonobj.Parse(data)
		if errors.Is(perr, jsonl.ErrTooDeep) {
			// not corrupt: OpenClaw reads it; a salvage would drop what is only deep
			res.Status, res.Reason = StatusSkipped, fmt.Sprintf("sessions.json is %v: left as is, not examined", perr)
			return res
		}
		if perr == nil {
			for _, m := range obj.Members() {
				members = append(members, StoreMember{Key: jsonobj.Quote(m.Key), Value: m.Value})
			}
		} else {
			var damaged []string
			members, damaged = SalvageStore(data)
			changed = true
			res.SalvagedEntries = len(members)
			res.DroppedEntries = len(damaged)
			reasons = append(reasons, fmt.Sprintf("sessions.json does not parse (%v): %d entries salvaged", perr, len(members)))
			for _, d := range damaged {
				res.Changes = append(res.Changes, Change{Action: "drop", Reason: d})
			}
		}
	} else {
		changed = true
		reasons = append(reasons, "no sessions.json: created")
	}
	if opts.RebuildStore {
		added, err := rebuildEntries(ctx, dir, agent, members)
		if err != nil {
			res.Status, res.Reason = StatusFailed, err.Error()
			return res
		}
		if len(added) > 0 {
			changed = true
			res.RebuiltEntries = len(added)
			for _, m := range added {
				res.Changes = append(res.Changes, Change{Action: "rebuild", Reason: "entry " + string(m.Key) + " recreated from its transcript"})
			}
			reasons = append(reasons, fmt.Sprintf("%d entries recreated from transcripts", len(added)))
			members = append(members, added...)
		}
	}
	if !changed {
		res.Status = StatusClean
		return res
	}
	out, err := composeStore(members)
	if err != nil {
		res.Status, res.Reason = StatusFailed, err.Error()
		return res
	}
	res.Status = StatusRepaired
	res.Reason = strings.Join(reasons, "; ")
	res.BytesAfter = int64(len(out))
	if opts.DryRun {
		if exists {
			res.BackupPath = opts.backupPath(path)
		}
		return res
	}
	if why := refusal(dir, "", opts); why != "" {
		res.Status, res.Reason = StatusSkipped, why
		return res
	}
	res.Notes = append(res.Notes, tempNotes(opts.Temps, path)...)
	if exists {
		backup := opts.backupPath(path)
		if opts.BackupDir != "" {
			if err := os.MkdirAll(opts.BackupDir, 0o700); err != nil {
				res.Status, res.Reason = StatusFailed, err.Error()
				return res
			}
		}
		backup, err := takeBackup(path, backup, opts.BackupDir != "")
		if err != nil {
			res.Status, res.Reason = StatusFailed, err.Error()
			return res
		}
		res.BackupPath = backup
	}
	if err := safefile.WriteFile(path, out); err != nil {
		res.Status, res.Reason = StatusFailed, err.Error()
		return res
	}
	if !exists {
		_ = os.Chmod(path, 0o600) // OpenClaw writes the store 0600
	}
	return res
}

// rebuildEntries makes entries for the live transcripts of dir that no member references by
// sessionId or sessionFile.
func rebuildEntries(ctx context.Context, dir, agent string, members []StoreMember) ([]StoreMember, error) {
	refID := map[string]bool{}
	refFile := map[string]bool{}
	keys := map[string]bool{}
	for _, m := range members {
		if k, ok := strValue(m.Key); ok {
			keys[k] = true
		}
		var e struct {
			SessionID   string `json:"sessionId"`
			SessionFile string `json:"sessionFile"`
		}
		if json.Unmarshal(m.Value, &e) != nil {
			continue
		}
		refID[strings.TrimSpace(e.SessionID)] = true
		if e.SessionFile != "" {
			refFile[filepath.Base(strings.ReplaceAll(e.SessionFile, `\`, "/"))] = true
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var added []StoreMember
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".jsonl") || !IsTranscriptName(name) || strings.Contains(name, ".checkpoint.") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		base := strings.TrimSuffix(name, ".jsonl")
		id := base
		if i := strings.Index(base, "-topic-"); i > 0 {
			id = base[:i]
		}
		if refFile[name] || (id == base && refID[id]) || !safeSessionID.MatchString(id) {
			continue
		}
		key := "agent:" + agent + ":recovered:" + base
		if keys[key] {
			continue
		}
		started, updated := transcriptTimes(filepath.Join(dir, name))
		var v bytes.Buffer
		v.WriteString(`{"sessionId":`)
		v.Write(jsonobj.Quote(id))
		v.WriteString(`,"sessionFile":`)
		v.Write(jsonobj.Quote(name))
		fmt.Fprintf(&v, `,"updatedAt":%d`, updated.UnixMilli())
		if !started.IsZero() {
			fmt.Fprintf(&v, `,"sessionStartedAt":%d`, started.UnixMilli())
		}
		v.WriteString(`}`)
		added = append(added, StoreMember{Key: jsonobj.Quote(key), Value: v.Bytes()})
		keys[key] = true
	}
	sort.Slice(added, func(i, j int) bool { return bytes.Compare(added[i].Key, added[j].Key) < 0 })
	return added, nil
}

// transcriptTimes reads the header timestamp and the timestamp of the last entry that has one
// (only the file's last 1 MiB is read); the file's mtime stands in for a missing last one.
func transcriptTimes(path string) (started, updated time.Time) {
	f, err := safefile.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	st, _ := f.Stat()
	if st != nil {
		updated = st.ModTime()
	}
	br := bufio.NewReader(f)
	if first, err := br.ReadBytes('\n'); err == nil || err == io.EOF {
		var h struct {
			Type, Timestamp string
		}
		if json.Unmarshal(first, &h) == nil && h.Type == "session" {
			started, _ = time.Parse(time.RFC3339Nano, h.Timestamp)
		}
	}
	if st == nil {
		return
	}
	off := max(st.Size()-1<<20, 0)
	tail := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(tail, off); err != nil && err != io.EOF {
		return
	}
	lines := bytes.Split(tail, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var e struct{ Timestamp string }
		if json.Unmarshal(lines[i], &e) == nil && e.Timestamp != "" {
			if t, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil {
				updated = t
				return
			}
		}
	}
	return
}
