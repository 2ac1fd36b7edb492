package repair

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
)

// OpenClaw 2026.6.11 inserts an "aborted" tool result after an assistant turn, in two cases
// (session-file-repair.ts): a tool call of an OpenAI code-mode turn (api
// openai-chatgpt-responses, provider openai) that no tool result in the file answers, then a
// `message` tool call of an OpenAI Responses turn whose next message is a transcript-only
// delivery mirror. Both need the whole file (a result may come later), so the first planning
// pass records the candidate calls and collectFacts decides, in OpenClaw's order, which get a
// result; the second pass writes them.

// candCall is a tool call that may get a synthetic result.
type candCall struct {
	key    uint64 // callKey: which entry and which content element
	id     uint64 // hash of the call id, exactly as written (OpenClaw does not trim it)
	mirror bool   // a message tool call followed by a delivery mirror (else a code-mode call)
}

// callKey names content element i of the n-th entry kept, the same in both passes.
func callKey(n, i int) uint64 { return uint64(n)<<24 | uint64(i) }

// toolCalls records (first pass) or answers (second pass) the tool calls of an assistant
// turn's content r, as extractToolCallsFromAssistant reads them: objects with a non-empty
// string id and a type toolCall, toolUse or functionCall. messageOnly keeps the calls of the
// `message` tool (name trimmed, any case) for the delivery-mirror rule.
func (p *planner) toolCalls(line int64, c []byte, r [2]int, idTok []byte, v *value, messageOnly bool) {
	for i, el := range p.elements(c, r) {
		ms := p.members(c, el)
		idr, ok := ms.get("id")
		if !ok {
			continue
		}
		id, ok := strValue(c[idr[0]:idr[1]])
		if !ok || id == "" {
			continue
		}
		t, ok := ms.get("type")
		if !ok {
			continue
		}
		if typ, _ := strValue(c[t[0]:t[1]]); typ != "toolCall" && typ != "toolUse" && typ != "functionCall" {
			continue
		}
		var nameTok []byte
		if nr, ok := ms.get("name"); ok && c[nr[0]] == '"' {
			nameTok = c[nr[0]:nr[1]]
		}
		if messageOnly {
			name, _ := strValue(nameTok)
			if nameTok == nil || strings.ToLower(jsTrim(name)) != "message" {
				continue
			}
		}
		key := callKey(p.nValues, i)
		if p.facts == nil {
			cc := candCall{key: key, id: maphash.String(p.seed, id), mirror: messageOnly}
			if messageOnly {
				p.pending = append(p.pending, cc) // decided by the next message entry
			} else {
				p.calls = append(p.calls, cc)
			}
			continue
		}
		if !p.facts.inserts[key] {
			continue
		}
		v.inserts = append(v.inserts, p.syntheticResult(idTok, c[idr[0]:idr[1]], nameTok))
		p.plan.Counts.InsertedToolResults++
		why := "code-mode tool call %s has no result: %q result inserted"
		if messageOnly {
			why = "message tool call %s before a delivery mirror has no result: %q result inserted"
		}
		p.change(line, "insert-tool-result", fmt.Sprintf(why, strconv.Quote(id), MissingToolResultText))
	}
}

// responsesAPI is OpenClaw's isOpenAIResponsesReplayApi (on the trimmed api).
func responsesAPI(api string) bool {
	return api == "openai-responses" || api == "azure-openai-responses" || api == "openai-codex-responses"
}

// deliveryMirror is isTranscriptOnlyDeliveryMirrorEntry for an assistant message: provider
// "openclaw" and model "delivery-mirror" or "gateway-injected", both trimmed.
func deliveryMirror(c []byte, m msgFields) bool {
	prov, _ := strValue(c[m.provider[0]:m.provider[1]])
	model, _ := strValue(c[m.model[0]:m.model[1]])
	if m.provider[1] == 0 || m.model[1] == 0 || jsTrim(prov) != "openclaw" {
		return false
	}
	model = jsTrim(model)
	return model == "delivery-mirror" || model == "gateway-injected"
}

// collectFacts finds, after a first pass, the tool calls that get a synthetic result and the
// parent ids that name no entry. Like OpenClaw, a call id answered anywhere in the file, or
// already given a result, gets none; code-mode calls are served before message tool calls.
func (p *planner) collectFacts() facts {
	var f facts
	if len(p.calls) > 0 {
		slices.Sort(p.results)
	}
	done := map[uint64]bool{}
	for _, mirror := range []bool{false, true} {
		for _, cc := range p.calls {
			if cc.mirror != mirror || done[cc.id] {
				continue
			}
			done[cc.id] = true
			if _, answered := slices.BinarySearch(p.results, cc.id); answered {
				continue
			}
			if f.inserts == nil {
				f.inserts = map[uint64]bool{}
			}
			f.inserts[cc.key] = true
		}
	}
	// Most parents name the entry before them and are not in p.parents: the few left are
	// looked up in one pass over the ids (sorting every id of a 256 MiB transcript was 2.5 %
	// of its repair, serial at the end of planning).
	if len(p.parents) == 0 {
		return f
	}
	found := make(map[uint64]bool, len(p.parents))
	for _, r := range p.parents {
		found[r.hash] = false
	}
	for _, id := range p.ids {
		if _, ok := found[id]; ok {
			found[id] = true
		}
	}
	for h, ok := range found {
		if !ok {
			if f.dangling == nil {
				f.dangling = map[uint64]bool{}
			}
			f.dangling[h] = true
		}
	}
	return f
}

// syntheticResult is the entry OpenClaw inserts after the assistant turn, as JSON.stringify
// writes makeSyntheticToolResultEntry: parentId only when the turn's id is a string, the call's
// id and name as written (name "unknown" when it is not a string).
func (p *planner) syntheticResult(parentTok, idTok, nameTok []byte) []byte {
	now := p.opts.Now.UTC()
	var b bytes.Buffer
	b.WriteString(`{"type":"message","id":`)
	b.Write(jsonobj.Quote(p.newID()))
	if parentTok != nil {
		b.WriteString(`,"parentId":`)
		b.Write(jsonobj.QuoteToken(parentTok))
	}
	b.WriteString(`,"timestamp":`)
	b.Write(jsonobj.Quote(now.Format("2006-01-02T15:04:05.000Z")))
	b.WriteString(`,"message":{"role":"toolResult","toolCallId":`)
	b.Write(jsonobj.QuoteToken(idTok))
	b.WriteString(`,"toolName":`)
	if nameTok != nil {
		b.Write(jsonobj.QuoteToken(nameTok))
	} else {
		b.WriteString(`"unknown"`)
	}
	b.WriteString(`,"content":[{"type":"text","text":"` + MissingToolResultText + `"}],"details":{"openclawSyntheticMissingToolResult":true},"isError":true,"timestamp":`)
	b.WriteString(strconv.FormatInt(now.UnixMilli(), 10))
	b.WriteString(`}}`)
	return b.Bytes()
}
