package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/clawdoctor/clawdoctor/internal/compaction"
	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/session"
)

// buildContext is pi's buildSessionContext plus convertToLlm (session.BuildContext and
// session.ConvertToLLM) over an active path, root first. Entries before the last compaction's
// kept region may be light (type, id and parent only): pi never emits them. It returns the
// messages before hygiene with the entry each came from, the path as compaction items, and a
// "context" step.
func buildContext(ctx context.Context, path []*session.Entry, name string, o Options) (ContextInfo, []hygiene.Message, []string, hygiene.Step, error) {
	st := hygiene.Step{Name: "context", Details: []string{}}
	ci := ContextInfo{Roles: map[string]int{}, Warnings: []string{}}
	build := session.BuildContext
	if hygiene.CompareReleases(orDefault(o.Release), hygiene.Release20260611) >= 0 {
		build = session.BuildContextStrict
	}
	if hygiene.CompareReleases(orDefault(o.Release), hygiene.Release20260735) >= 0 {
		normalizeLoaded(path)
	}
	sc := build(path)
	ci.ThinkingLevel, ci.Model, ci.PathEntries = sc.ThinkingLevel, sc.Model, len(sc.Path)
	if len(sc.Path) == 0 {
		st.Details = append(st.Details, "no entries: the context is empty")
		return ci, nil, nil, st, nil
	}
	ci.Leaf = sc.Path[len(sc.Path)-1].ID
	st.Details = append(st.Details, fmt.Sprintf("leaf %s, path of %d entries", ci.Leaf, len(sc.Path)))
	if p := sc.Path[0].Parent(); p != "" {
		w := fmt.Sprintf("%s: the path stops at %s: its parent %q is not in the file, so older history is not sent", name, sc.Path[0].ID, p)
		ci.Warnings = append(ci.Warnings, w)
		st.Details = append(st.Details, w)
	}
	for _, e := range sc.Unusable {
		raw, ok, _ := session.GetField(e.Raw, "message")
		if ok && string(raw) != "null" {
			ci.Warnings = append(ci.Warnings, fmt.Sprintf("%s: entry %s: message is not an object: OpenClaw sends it as it is (no provider API takes a message that is not an object; not checked against a provider)", name, e.ID))
		}
	}
	if sc.Throws != "" {
		ci.Throws = name + ": " + sc.Throws
		ci.Warnings = append(ci.Warnings, ci.Throws)
		st.Details = append(st.Details, ci.Throws+": nothing is sent")
		return ci, nil, nil, st, nil
	}

	// Entries before the last compaction's kept region are only read by Recheck: they keep
	// their role and tokens, not their messages.
	keep := 0
	if c := sc.Compaction; c != nil {
		for i, e := range sc.Path {
			if sc.FirstKeptFound && e.ID == c.FirstKeptEntryID {
				keep = i
				break
			}
			if e == c {
				keep = i
				break
			}
		}
	}
	decoded := make(map[*session.Entry]hygiene.Message, len(sc.Path)-keep)
	ci.Path = make([]compaction.Item, 0, len(sc.Path))
	est := o.Compaction.Estimator
	if est == "" {
		est = compaction.EstimatorPi
	}
	for i, e := range sc.Path {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return ci, nil, nil, st, err
			}
		}
		it := compaction.Item{ID: e.ID, Kind: e.Type, Timestamp: entryTime(e), FirstKeptID: e.FirstKeptEntryID, FromHook: e.FromHook}
		var js []byte
		decode := hygiene.Decode
		if e.Raw == nil {
			// a light stand-in for an entry pi never emits
		} else if e.Type == session.TypeMessage {
			raw, ok, _ := session.GetField(e.Raw, "message")
			switch {
			case !ok || len(raw) == 0 || string(raw) == "null":
			case raw[0] == '{':
				js = raw
			default: // a value pi holds as it is (session.ContextMessage.Value)
				js, decode = raw, hygiene.DecodeValue
			}
		} else if e.Type == session.TypeCustomMessage || e.Type == session.TypeBranchSummary || e.Type == session.TypeCompaction {
			if one := session.BuildContext([]*session.Entry{e}); len(one.Messages) == 1 {
				js = one.Messages[0].JSON
			}
		}
		if js != nil {
			m, err := decode(js)
			if err != nil {
				ci.Warnings = append(ci.Warnings, fmt.Sprintf("%s: entry %s: %v", name, e.ID, err))
			} else {
				it.Tokens = est.Tokens(m)
				if i < keep {
					it.MsgRole = hygiene.Role(m)
				} else {
					decoded[e] = m
					it.Msg = m
				}
			}
		}
		ci.Path = append(ci.Path, it)
	}
	if leafEntry := sc.Path[len(sc.Path)-1]; leafEntry.Type == session.TypeMessage && leafEntry.Message != nil && leafEntry.Message.Role == session.RoleUser {
		ci.OrphanUserLeaf = true
		st.Details = append(st.Details, fmt.Sprintf("the leaf %s is a user message: before the next prompt OpenClaw moves the leaf to its parent and drops it (\"Removed orphaned user message\"); shown here as stored", leafEntry.ID))
	}
	if c := sc.Compaction; c != nil {
		ci.Compaction, ci.FirstKeptEntry, ci.FirstKeptFound = c.ID, c.FirstKeptEntryID, sc.FirstKeptFound
		if sc.FirstKeptFound {
			st.Details = append(st.Details, fmt.Sprintf("compaction %s: summary first, then entries from %s on", c.ID, c.FirstKeptEntryID))
		} else {
			st.Details = append(st.Details, fmt.Sprintf("compaction %s: firstKeptEntryId %q is not on the path before it, so nothing older is kept", c.ID, c.FirstKeptEntryID))
		}
		omitted := 0 // message entries the summary replaces: the path before the kept region
		for _, e := range sc.Path[:keep] {
			if e.Type == session.TypeMessage || e.Type == session.TypeCustomMessage || e.Type == session.TypeBranchSummary {
				omitted++
			}
		}
		if omitted > 0 {
			st.Changed += omitted
			st.Details = append(st.Details, fmt.Sprintf("%d message entr(ies) before the kept region are replaced by the summary", omitted))
		}
	}

	// The history OpenClaw sanitizes is the context itself (AgentMessages, custom roles and
	// all); convertToLlm runs later, when the request is built.
	proj := make([]hygiene.Message, 0, len(sc.Messages))
	msgs := make([]hygiene.Message, 0, len(sc.Messages))
	refs := make([]string, 0, len(sc.Messages))
	for _, cm := range sc.Messages {
		ci.Roles[cm.Role]++
		m := decoded[cm.Entry]
		if m == nil {
			decode := hygiene.Decode
			if cm.Value {
				decode = hygiene.DecodeValue
			}
			var err error
			if m, err = decode(cm.JSON); err != nil {
				continue
			}
			decoded[cm.Entry] = m
		}
		proj = append(proj, m)
		msgs = append(msgs, m)
		ref := cm.Entry.ID
		if cm.Role == session.RoleCompactionSummary {
			ref = "summary:" + ref
		}
		refs = append(refs, ref)
	}
	ci.Projected = proj
	ci.Messages = len(msgs)
	return ci, msgs, refs, st, nil
}

// entryTime is new Date(entry.timestamp).getTime() (NaN when it does not parse; light
// entries, which carry no timestamp, are NaN too).
func entryTime(e *session.Entry) float64 {
	if e.Raw == nil {
		return math.NaN()
	}
	raw, ok, _ := session.GetField(e.Raw, "timestamp")
	if !ok {
		return math.NaN()
	}
	v, err := hygiene.Decode(append(append([]byte(`{"v":`), raw...), '}'))
	if err != nil {
		return math.NaN()
	}
	return hygiene.DateValue(v["v"], true)
}

// ModelSnapshot is the model-switch check of sanitizeSessionHistory (spec §6.6): the last
// "model-snapshot" custom entry on the path against the target provider/api/model.
type ModelSnapshot struct {
	Provider    string `json:"provider"`
	ModelAPI    string `json:"model_api"`
	ModelID     string `json:"model_id"`
	Found       bool   `json:"found"`
	WouldAppend bool   `json:"would_append"`
	Reason      string `json:"reason,omitempty"`
}

// lastSnapshot is readLastModelSnapshot: the data of the last "model-snapshot" custom entry
// of the file (every entry, not only the path) whose data is an object.
func lastSnapshot(custom []*session.Entry) *hygiene.Snapshot {
	for i := len(custom) - 1; i >= 0; i-- {
		e := custom[i]
		if e.Type != session.TypeCustom || e.CustomType != "model-snapshot" {
			continue
		}
		var d map[string]any
		if json.Unmarshal(e.Data, &d) != nil || d == nil {
			continue
		}
		s := func(k string) string { v, _ := d[k].(string); return v }
		return &hygiene.Snapshot{Provider: s("provider"), ModelAPI: s("modelApi"), ModelID: s("modelId")}
	}
	return nil
}

func modelSnapshot(snap *hygiene.Snapshot, api string, o Options) ModelSnapshot {
	if snap == nil {
		return ModelSnapshot{WouldAppend: true, Reason: "no snapshot yet"}
	}
	ms := ModelSnapshot{Provider: snap.Provider, ModelAPI: snap.ModelAPI, ModelID: snap.ModelID, Found: true}
	if ms.Provider != o.Provider || ms.ModelAPI != api || ms.ModelID != o.Model {
		ms.WouldAppend = true
		ms.Reason = fmt.Sprintf("model changed from %s/%s (%s)", ms.Provider, ms.ModelID, ms.ModelAPI)
	}
	return ms
}

// normalizeLoaded is 2026.7.35's normalizeLoadedFileEntry, which its session loader runs on
// every entry it parses (openclaw.LoaderNormalizesContent): the string content of an assistant
// or toolResult message becomes one text block, and the object content of a toolResult a list
// of it. Earlier releases left them, and a tool result's string was sent as "[empty content
// omitted]".
func normalizeLoaded(path []*session.Entry) {
	for _, e := range path {
		if e.Raw == nil || e.Type != session.TypeMessage {
			continue
		}
		msg, ok, _ := session.GetField(e.Raw, "message")
		if !ok || len(msg) == 0 || msg[0] != '{' {
			continue
		}
		roleRaw, ok, _ := session.GetField(msg, "role")
		if !ok {
			continue
		}
		var role string
		if json.Unmarshal(roleRaw, &role) != nil {
			continue
		}
		content, ok, _ := session.GetField(msg, "content")
		if !ok || len(content) == 0 {
			continue
		}
		var repl []byte
		switch {
		case (role == "assistant" || role == "toolResult") && content[0] == '"':
			repl = append(append([]byte(`[{"type":"text","text":`), content...), "}]"...)
		case role == "toolResult" && content[0] == '{':
			repl = append(append([]byte("["), content...), ']')
		}
		if repl != nil {
			if raw, err := session.SetField(e.Raw, "message.content", repl); err == nil {
				e.Raw = raw
			}
		}
	}
}
