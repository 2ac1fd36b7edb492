// Package conformance checks clawdoctor's cleanup planner against the real OpenClaw CLI. It
// generates sessions dirs that exercise every maintenance rule (hundreds of entries, archives,
// orphans, protected keys, budgets that force each tier) and, behind the "conformance" build
// tag, runs `openclaw sessions cleanup --dry-run --json` and retention on the same copies at
// the same fixed time and requires equal numbers. scripts/conformance.sh runs it.
package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Now is the fixed clock of every conformance run.
var Now = time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)

// Scenario is one generated sessions dir with its config and cleanup flags.
type Scenario struct {
	Name        string
	Seed        uint64
	Entries     int
	Maintenance map[string]any // session.maintenance
	FixMissing  bool
	ActiveKey   string
	budgetFrac  float64 // maxDiskBytes as a fraction of the dir total (0: none)
	highFrac    float64 // highWaterBytes as a fraction of maxDiskBytes (0: default)
}

const day = 24 * time.Hour

func uuid(r *rand.Rand) string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func stamp(t time.Time) string {
	return strings.ReplaceAll(t.UTC().Format("2006-01-02T15:04:05.000Z"), ":", "-")
}

type genFile struct {
	name  string
	size  int
	mtime time.Time
	data  []byte
}

// Scenarios returns n deterministic scenarios covering the rules and each budget tier.
func Scenarios(n int) []Scenario {
	var out []Scenario
	for i := 0; i < n; i++ {
		r := rand.New(rand.NewPCG(uint64(i)+1, 77))
		sc := Scenario{Seed: uint64(i) + 1, Entries: 5 + r.IntN(60), Maintenance: map[string]any{}}
		if i%5 == 0 {
			sc.Entries = 150 + r.IntN(350) // hundreds of entries
		}
		switch i % 10 {
		case 0:
			sc.Name = "defaults"
		case 1:
			sc.Maintenance["pruneAfter"] = []string{"7d", "12h", "45d", "90"}[r.IntN(4)]
			sc.Name = "prune-after"
		case 2:
			sc.Maintenance["maxEntries"] = 1 + r.IntN(max(2, sc.Entries/2))
			sc.Name = "cap"
		case 3:
			sc.budgetFrac = 0.9 + r.Float64()*0.2 // around the total: tier 2 or nothing
			sc.Name = "budget-tier2"
		case 4:
			sc.budgetFrac = 0.15 + r.Float64()*0.2 // deep: tier 3 evictions
			sc.Name = "budget-tier3"
		case 5:
			sc.budgetFrac = 0.6
			sc.highFrac = 0.5 + r.Float64()*0.5
			sc.Maintenance["pruneAfter"] = "400d"
			sc.Name = "budget-highwater"
		case 6:
			sc.FixMissing = true
			sc.Maintenance["maxEntries"] = 10 + r.IntN(40)
			sc.Name = "fix-missing-cap"
		case 7:
			sc.Maintenance["mode"] = "warn"
			sc.budgetFrac = 0.5
			sc.Name = "warn-budget"
		case 8:
			sc.Maintenance["resetArchiveRetention"] = false
			sc.Maintenance["pruneAfter"] = "20d"
			sc.Maintenance["maxEntries"] = 5 + r.IntN(20)
			sc.Name = "active-key-cap"
			sc.ActiveKey = "agent:main:main"
		case 9:
			sc.budgetFrac = 0.3
			sc.Maintenance["maxEntries"] = 20
			sc.Maintenance["pruneAfter"] = "10d"
			sc.FixMissing = true
			sc.Name = "everything"
		}
		sc.Name = fmt.Sprintf("gen%02d-%s", i, sc.Name)
		out = append(out, sc)
	}
	return out
}

// Generate writes the scenario's sessions dir at dir (created) and returns the total bytes
// of its regular files. It sets every mtime, so runs are reproducible.
func Generate(dir string, sc Scenario) (int64, error) {
	r := rand.New(rand.NewPCG(sc.Seed, 99))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	type row struct {
		key string
		val map[string]any
	}
	var rows []row
	var files []genFile
	ago := func(d time.Duration) time.Time { return Now.Add(-d) }
	randAge := func() time.Duration { return time.Duration(r.Float64() * float64(120*day)) }
	header := func(id string) []byte {
		return []byte(fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`+"\n", id))
	}
	message := func(id string, n int) []byte {
		b := header(id)
		for i := 0; i < n; i++ {
			b = append(b, fmt.Sprintf(`{"type":"message","id":"m%d","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":%q}}`+"\n", i, strings.Repeat("x", r.IntN(400)))...)
		}
		return b
	}
	kinds := []string{"main", "direct", "tgdirect", "channel", "groupchat", "thread", "topic", "cron", "cronrun", "subagent",
		"heartbeat", "modelrun", "explicit", "legacy", "room", "hook"}
	var ids []string
	for i := 0; i < sc.Entries; i++ {
		kind := kinds[r.IntN(len(kinds))]
		if i == 0 {
			kind = "main"
		}
		id := uuid(r)
		key := ""
		val := map[string]any{}
		switch kind {
		case "main":
			key = "agent:main:main"
			if i > 0 {
				key = fmt.Sprintf("agent:main:main%d", i)
			}
			val["chatType"] = "direct"
		case "direct":
			key = fmt.Sprintf("agent:main:direct:+1555%04d", i)
		case "tgdirect":
			key = fmt.Sprintf("agent:main:telegram:direct:%d", 1000+i)
		case "channel":
			key = fmt.Sprintf("agent:main:discord:channel:%d", 900+i)
		case "groupchat":
			key = fmt.Sprintf("agent:main:whatsapp:direct:+44%04d", i)
			val["chatType"] = "group"
		case "thread":
			key = fmt.Sprintf("agent:main:slack:dm:u%d:thread:%d.1", i, i)
		case "topic":
			key = fmt.Sprintf("agent:main:telegram:group:-100%d:topic:%d", i, i%7)
		case "cron":
			key = fmt.Sprintf("agent:main:cron:job%d", i)
		case "cronrun":
			key = fmt.Sprintf("agent:main:cron:job%d:run:%s", i%3, uuid(r))
		case "subagent":
			key = "agent:main:subagent:" + uuid(r)
		case "heartbeat":
			key = fmt.Sprintf("agent:main:direct:h%d:heartbeat", i)
		case "modelrun":
			key = "agent:main:explicit:model-run-" + uuid(r)
		case "explicit":
			key = fmt.Sprintf("agent:main:explicit:note%d", i)
		case "legacy":
			key = fmt.Sprintf("telegram:group:-%d", 500+i)
		case "room":
			key = fmt.Sprintf("agent:main:matrix:room:!r%d:srv", i)
			val["chatType"] = "room"
		case "hook":
			key = "agent:main:hook:" + uuid(r)
		}
		if len(ids) > 0 && r.IntN(12) == 0 {
			id = ids[r.IntN(len(ids))] // shared sessionId
		}
		ids = append(ids, id)
		val["sessionId"] = id
		switch r.IntN(10) {
		case 0: // no updatedAt
		case 1:
			val["updatedAt"] = Now.Add(-30*day + time.Duration(r.IntN(2)*2-1)*time.Hour).UnixMilli() // an hour either side of the default cutoff (the reference clock runs on under faketime)
		default:
			val["updatedAt"] = ago(randAge()).UnixMilli()
		}
		val["label"] = []string{"", "work", "home", "ops"}[r.IntN(4)]
		if val["label"] == "" {
			delete(val, "label")
		}
		val["model"] = []string{"gpt-5", "claude-opus-4-5", "gemini-3-pro"}[r.IntN(3)]
		switch r.IntN(5) { // delivery fields the gateway reconciles on load (route synthesis)
		case 0:
			val["lastChannel"] = "webchat"
			val["deliveryContext"] = map[string]any{"channel": "webchat"}
		case 1:
			val["lastChannel"] = "telegram"
			val["lastTo"] = fmt.Sprintf("telegram:%d", 1000+i)
			val["lastAccountId"] = "default"
			val["deliveryContext"] = map[string]any{"channel": "telegram", "to": fmt.Sprintf("telegram:%d", 1000+i), "accountId": "default"}
		case 2:
			val["lastChannel"] = "slack"
			val["lastTo"] = "user:U1"
			val["deliveryContext"] = map[string]any{"channel": "slack", "to": "user:U1"}
			val["origin"] = map[string]any{"provider": "slack", "threadId": fmt.Sprintf("17000%d.1", i)}
		}
		transcript := id + ".jsonl"
		switch r.IntN(12) {
		case 0:
			transcript = fmt.Sprintf("%s-topic-%d.jsonl", id, i)
			val["sessionFile"] = transcript
		case 1:
			val["sessionFile"] = "../../outside-" + id + ".jsonl" // escapes: falls back to <id>.jsonl
		case 2:
			val["sessionFile"] = filepath.Join(dir, transcript) // absolute inside
		}
		mt := ago(time.Duration(r.Float64() * float64(90*day)))
		switch r.IntN(10) {
		case 0: // missing transcript
		case 1:
			files = append(files, genFile{name: transcript, mtime: mt, data: header(id)}) // header only
		default:
			files = append(files, genFile{name: transcript, mtime: mt, data: message(id, 1+r.IntN(6))})
			if r.IntN(4) == 0 {
				base := strings.TrimSuffix(transcript, ".jsonl")
				files = append(files, genFile{name: base + ".trajectory.jsonl", mtime: mt, data: []byte(strings.Repeat("t", 50+r.IntN(500)) + "\n")})
			}
			if r.IntN(6) == 0 {
				cp := fmt.Sprintf("%s.checkpoint.%s.jsonl", id, uuid(r))
				files = append(files, genFile{name: cp, mtime: mt, data: message(id, 2)})
				if r.IntN(2) == 0 {
					val["compactionCheckpoints"] = []any{map[string]any{"checkpointId": "c", "preCompaction": map[string]any{"sessionFile": filepath.Join(dir, cp)}, "postCompaction": map[string]any{}}}
				}
			}
		}
		rows = append(rows, row{key, val})
	}
	if sc.ActiveKey != "" && len(rows) > 0 {
		rows[0].key = sc.ActiveKey
	}
	// archives, orphans, temps, foreign files
	for i := 0; i < 3+sc.Entries/4; i++ {
		id := uuid(r)
		age := randAge()
		switch r.IntN(8) {
		case 0, 1:
			files = append(files, genFile{name: fmt.Sprintf("%s.jsonl.reset.%s", id, stamp(ago(age))), mtime: ago(age), data: message(id, 1+r.IntN(5))})
		case 2:
			files = append(files, genFile{name: fmt.Sprintf("%s.jsonl.deleted.%s", id, stamp(ago(age))), mtime: ago(age), data: message(id, 1+r.IntN(5))})
		case 3:
			files = append(files, genFile{name: fmt.Sprintf("%s.jsonl.bak.%s", id, stamp(ago(age))), mtime: ago(age), data: message(id, 1)})
		case 4:
			files = append(files, genFile{name: id + ".jsonl", mtime: ago(age), data: message(id, 1+r.IntN(5))}) // orphan
		case 5:
			files = append(files, genFile{name: fmt.Sprintf("sessions.json.%d.%s.tmp", 100+i, uuid(r)), mtime: ago(time.Duration([]int{1, 2, 3, 8, 12, 19}[r.IntN(6)]) * time.Minute) /* away from the 5-minute edge: the reference clock runs on */, data: []byte("{}")})
		case 6:
			files = append(files, genFile{name: fmt.Sprintf("sessions.json.bak.%d", ago(age).UnixMilli()), mtime: ago(age), data: []byte(`{"old":{}}`)})
		case 7:
			files = append(files, genFile{name: fmt.Sprintf("notes-%d.txt", i), mtime: ago(age), data: []byte(strings.Repeat("n", 100+r.IntN(900)))})
		}
	}
	// sessions.json as OpenClaw writes it: JSON.stringify(store, null, 2), insertion order.
	var b strings.Builder
	b.WriteString("{")
	for i, rw := range rows {
		if i > 0 {
			b.WriteString(",")
		}
		kb, _ := json.Marshal(rw.key)
		b.WriteString("\n  " + string(kb) + ": ")
		b.WriteString(indentObject(rw.val))
	}
	if len(rows) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}")
	files = append(files, genFile{name: "sessions.json", mtime: Now.Add(-time.Hour), data: []byte(b.String())})
	seen := map[string]bool{}
	var total int64
	for i, f := range files {
		if seen[f.name] {
			continue
		}
		seen[f.name] = true
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return 0, err
		}
		mt := f.mtime.Add(time.Duration(i) * time.Millisecond) // distinct mtimes: no ties
		if err := os.Chtimes(p, mt, mt); err != nil {
			return 0, err
		}
		total += int64(len(f.data))
	}
	return total, nil
}

// indentObject writes a flat-ish map as JSON.stringify(v, null, 2) at depth 1, keys in a
// fixed order.
func indentObject(v map[string]any) string {
	order := []string{"sessionId", "sessionFile", "updatedAt", "chatType", "label", "model", "lastChannel", "lastTo",
		"lastAccountId", "deliveryContext", "origin", "compactionCheckpoints"}
	var keys []string
	for _, k := range order {
		if _, ok := v[k]; ok {
			keys = append(keys, k)
		}
	}
	var extra []string
	for k := range v {
		found := false
		for _, o := range order {
			found = found || o == k
		}
		if !found {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	keys = append(keys, extra...)
	var b strings.Builder
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.MarshalIndent(v[k], "    ", "  ")
		b.WriteString("\n    " + string(kb) + ": " + string(vb))
	}
	b.WriteString("\n  }")
	return b.String()
}

// Config returns the openclaw.json text for the scenario given the generated dir's total.
func (sc Scenario) Config(total int64) map[string]any {
	m := map[string]any{}
	for k, v := range sc.Maintenance {
		m[k] = v
	}
	if sc.budgetFrac > 0 {
		max := int64(float64(total) * sc.budgetFrac)
		m["maxDiskBytes"] = fmt.Sprint(max)
		if sc.highFrac > 0 {
			m["highWaterBytes"] = fmt.Sprint(int64(float64(max) * sc.highFrac))
		}
	}
	return map[string]any{"session": map[string]any{"maintenance": m}}
}
