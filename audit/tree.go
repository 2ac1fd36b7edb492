package audit

import (
	"fmt"
	"strings"
	"time"
)

// tree runs the checks that need the whole file: parent links, roots, cycles, compactions, and
// the active-branch checks (tool pairing, lost prompts, fallbacks, message batching).
func (s *scan) tree() {
	count := int32(s.nodes.n)
	if count == 0 {
		return
	}
	// Parent links. A file without ids (pi v1, or a foreign format) has no tree to check.
	var roots []int32
	for i := int32(0); i < count; i++ {
		n := s.nd(i)
		if n.id.empty() {
			continue
		}
		if n.flags&fHasParent == 0 {
			roots = append(roots, i)
			continue
		}
		pb := s.a.bytes(n.parent)
		var p int32
		var ok bool
		// appends chain each entry to the one before it: try that before the index
		// (with duplicate ids the index decides: the later entry wins)
		if i > 0 && !s.dupIDs && string(s.idOf(i-1)) == string(pb) {
			p, ok = i-1, true
		}
		if !ok {
			p, ok = s.lookup(pb)
		}
		if !ok {
			id, parent := s.str(n.id), s.str(n.parent)
			s.add("tree.dangling-parent", n.line, id, fmt.Sprintf("entry %s at line %d names parent %s, which is not in the file; OpenClaw's context walk stops here and silently drops everything before it",
				id, n.line, parent), s.repairHint("--relink "), map[string]any{"parentId": parent})
			continue
		}
		n.parentIdx = p
	}
	if len(roots) > 1 {
		ids := make([]string, 0, 10)
		lines := make([]int64, 0, 10)
		for _, r := range roots {
			if len(ids) < 10 {
				ids = append(ids, s.str(s.nd(r).id))
				lines = append(lines, s.nd(r).line)
			}
		}
		second := s.nd(roots[1])
		s.add("tree.multiple-roots", second.line, s.str(second.id), fmt.Sprintf("%d entries have parentId null (first at line %d, another at line %d); only the branch of the last entry is sent to the model, the other trees are dead history",
			len(roots), s.nd(roots[0]).line, second.line), "", map[string]any{"roots": len(roots), "rootIds": ids, "rootLines": lines})
	}
	s.cycles()

	path := s.activePath()
	s.compactions(path)
	s.tools(path)
	s.lostPrompts()
	s.fallbackChain(path)
	s.delivery(path)
}

// cycles finds parent chains that loop, with an iterative three-colour walk.
func (s *scan) cycles() {
	state := make([]uint8, s.nodes.n) // 0 new, 1 on the current walk, 2 done
	var stack []int32
	for i := range state {
		if state[i] != 0 {
			continue
		}
		stack = stack[:0]
		cur := int32(i)
		for cur >= 0 && state[cur] == 0 {
			state[cur] = 1
			stack = append(stack, cur)
			cur = s.nd(cur).parentIdx
		}
		if cur >= 0 && state[cur] == 1 { // back on the current walk: a cycle
			var ids []string
			start := 0
			for k, x := range stack {
				if x == cur {
					start = k
				}
			}
			for _, x := range stack[start:] {
				ids = append(ids, s.str(s.nd(x).id))
			}
			n := s.nd(cur)
			s.add("tree.cycle", n.line, s.str(n.id), fmt.Sprintf("parentId links form a cycle through %d entries (%s); the context walk never reaches a root",
				len(ids), strings.Join(firstN(ids, 5), " → ")), replayHint(s.name), map[string]any{"cycle": firstN(ids, 50)})
			// break the cycle so later walks end
			n.parentIdx = -1
		}
		for _, x := range stack {
			state[x] = 2
		}
	}
}

func firstN(ss []string, n int) []string {
	if len(ss) <= n {
		return ss
	}
	return ss[:n]
}

// activePath returns the entries from the root to the active leaf (spec transcript.md §2.9):
// the last entry in file order, or for OpenClaw agent-core files the target of the last leaf
// row, ignoring appendMode "side" rows.
func (s *scan) activePath() []int32 {
	leaf := int32(-1)
	for i := int32(s.nodes.n) - 1; i >= 0; i-- {
		n := s.nd(i)
		if n.flags&fSide != 0 {
			continue
		}
		if n.kind == kindLeaf {
			if n.extra.empty() {
				return nil // leaf moved to null: empty context
			}
			if t, ok := s.lookup(s.a.bytes(n.extra)); ok {
				leaf = t
			}
			break
		}
		if n.id.empty() {
			continue
		}
		leaf = i
		break
	}
	var path []int32
	for cur, steps := leaf, 0; cur >= 0 && steps <= s.nodes.n; steps++ {
		if s.nd(cur).kind != kindLeaf {
			path = append(path, cur)
		}
		cur = s.nd(cur).parentIdx
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// compactions checks that every compaction's firstKeptEntryId is on its own path before it.
func (s *scan) compactions(path []int32) {
	var onPath []int32 // node → 1 + position on the active path; built on the first compaction
	for i := int32(0); i < int32(s.nodes.n); i++ {
		n := s.nd(i)
		if n.kind != kindCompaction || n.extra.empty() {
			continue
		}
		if onPath == nil {
			onPath = make([]int32, s.nodes.n)
			for pos, ni := range path {
				onPath[ni] = int32(pos) + 1
			}
		}
		kept, ok := s.lookup(s.a.bytes(n.extra))
		found := false
		if ok {
			if pos := onPath[i]; pos > 0 {
				found = onPath[kept] > 0 && onPath[kept] < pos
			} else {
				for cur, steps := n.parentIdx, 0; cur >= 0 && steps <= s.nodes.n; steps++ {
					if cur == kept {
						found = true
						break
					}
					cur = s.nd(cur).parentIdx
				}
			}
		}
		if !found {
			why := "is not in the file"
			if ok {
				why = fmt.Sprintf("is at line %d but not on the compaction's own branch before it", s.nd(kept).line)
			}
			id, first := s.str(n.id), s.str(n.extra)
			s.add("compaction.first-kept-missing", n.line, id, fmt.Sprintf("compaction %s at line %d keeps from entry %s, which %s; no pre-compaction messages are kept, the model sees only the summary",
				id, n.line, first, why), "", map[string]any{"firstKeptEntryId": first})
		}
	}
}

// contextMessage reports whether n becomes a message in the model's context.
func (n *node) contextMessage() bool {
	switch n.kind {
	case kindMessage, kindCustomMessage, kindBranchSummary:
		return n.role != roleNone
	}
	return false
}

type callState struct {
	c       *call
	asstPos int
	results int
	line    int64 // line of the first result
}

// tools checks tool-call/result pairing on the active path (spec transcript.md §4.3): every call
// must be answered by exactly one result, right after the calling assistant turn.
func (s *scan) tools(path []int32) {
	open := map[string]*callState{}
	var states []*callState
	contig := -1 // path position of the assistant whose result block is still unbroken
	for pos, ni := range path {
		n := s.nd(ni)
		if !n.contextMessage() || n.flags&fMirror != 0 {
			continue // transcript-only rows (delivery-mirror, gateway-injected) never reach the model
		}
		switch n.role {
		case roleAssistant:
			contig = -1
			if n.callN > 0 {
				contig = pos
			}
			for k := n.callStart; k < n.callStart+n.callN; k++ {
				c := &s.calls[k]
				cid := s.str(c.id)
				if c.invalid != 0 {
					id, name := s.str(n.id), s.str(c.name)
					s.add("tool.invalid-call", n.line, id, fmt.Sprintf("tool call %q (%q) in assistant turn %s at line %d is invalid: %s; OpenClaw drops it on replay (and the whole turn if nothing else is left)",
						cid, name, id, n.line, invalidReasons[c.invalid]), replayHint(s.name), map[string]any{"toolCallId": cid, "toolName": name, "problem": invalidReasons[c.invalid]})
				}
				if cid == "" {
					continue
				}
				st := &callState{c: c, asstPos: pos}
				open[cid] = st
				if n.flags&fError == 0 {
					states = append(states, st)
				}
			}
		case roleToolResult:
			rid := s.a.bytes(n.extra)
			st := open[string(rid)]
			switch {
			case len(rid) == 0 || st == nil:
				s.add("tool.orphan-result", n.line, s.str(n.id), fmt.Sprintf("tool result %s at line %d answers tool call %q, which no earlier assistant turn on the active branch made; OpenClaw drops it on replay and strict providers reject it (unexpected tool_use_id)",
					s.str(n.id), n.line, rid), replayHint(s.name), map[string]any{"toolCallId": string(rid), "toolName": s.str(n.extra2)})
			case st.results > 0:
				st.results++
				name := s.str(st.c.name)
				s.add("tool.duplicate-result", n.line, s.str(n.id), fmt.Sprintf("tool call %q (%s) already has a result at line %d; this second result at line %d is dropped on replay",
					rid, name, st.line, n.line), replayHint(s.name), map[string]any{"toolCallId": string(rid), "toolName": name, "firstResultLine": st.line})
			default:
				st.results, st.line = 1, n.line
				if contig != st.asstPos {
					asst := s.nd(st.c.node)
					name := s.str(st.c.name)
					s.add("tool.displaced-result", n.line, s.str(n.id), fmt.Sprintf("the result of tool call %q (%s) is at line %d, not right after its call at line %d (other messages in between); providers require results immediately after the call, OpenClaw moves it on replay",
						rid, name, n.line, asst.line), replayHint(s.name), map[string]any{"toolCallId": string(rid), "toolName": name, "callLine": asst.line, "callEntryId": s.str(asst.id)})
				}
			}
		default:
			contig = -1
		}
	}
	for _, st := range states {
		if st.results > 0 {
			continue
		}
		asst := s.nd(st.c.node)
		id, cid, name := s.str(asst.id), s.str(st.c.id), s.str(st.c.name)
		s.add("tool.unpaired-call", asst.line, id, fmt.Sprintf("tool call %q (%s) in assistant turn %s at line %d has no result on the active branch; providers reject a call without its result (tool_use without tool_result), so OpenClaw's pairing repair inserts a synthetic result when it sends the session",
			cid, name, id, asst.line), replayHint(s.name)+" (for an OpenAI code-mode turn, clawdoctor repair "+s.name+" writes the missing result)", map[string]any{"toolCallId": cid, "toolName": name})
	}
}

// lostPrompts flags user turns that are exactly the old generic retry text and recovers the
// prompt it replaced from the previous real user turn on the same branch.
func (s *scan) lostPrompts() {
	for i := int32(0); i < int32(s.nodes.n); i++ {
		n := s.nd(i)
		if n.role != roleUser || n.flags&fRetryText == 0 {
			continue
		}
		id := s.str(n.id)
		ev := map[string]any{"retryText": RetryText}
		answered := false
		var prompt *node
		for cur, steps := n.parentIdx, 0; cur >= 0 && steps <= s.nodes.n; steps++ {
			p := s.nd(cur)
			if p.role == roleAssistant && p.flags&(fError|fMirror) == 0 && p.flags&fHasContent != 0 {
				answered = true
			}
			if p.role == roleUser && p.flags&fRetryText == 0 {
				prompt = p
				break
			}
			cur = p.parentIdx
		}
		var msg, hint string
		if prompt != nil {
			text := s.str(prompt.extra)
			ev["replacedPrompt"] = text
			ev["promptEntryId"] = s.str(prompt.id)
			ev["promptLine"] = prompt.line
			ev["answeredBeforeRetry"] = answered
			tail := "the fallback model answered the generic text instead of the user's request"
			if !answered {
				tail = "the request was never answered: the task exists only in history and the fallback model saw \"continue\""
			}
			msg = fmt.Sprintf("user turn %s at line %d is OpenClaw's generic fallback retry text, not the user's prompt (bug #65760, fixed in 2026.4.14); the replaced prompt is most likely line %d: %q; %s",
				id, n.line, prompt.line, preview(text, 160), tail)
			hint = "Upgrade OpenClaw and re-send that prompt"
		} else {
			ev["unrecoverable"] = true
			msg = fmt.Sprintf("user turn %s at line %d is OpenClaw's generic fallback retry text, not the user's prompt (bug #65760, fixed in 2026.4.14); no earlier user turn on this branch, so the original prompt (e.g. a subagent task or a sessions_send message) never reached the transcript and cannot be recovered",
				id, n.line)
			hint = "Upgrade OpenClaw"
		}
		s.add("fallback.lost-prompt", n.line, id, msg, hint, ev)
	}
}

// fallbackChain reports model switches after error turns on the active path.
func (s *scan) fallbackChain(path []int32) {
	var errTurn *node
	differs := func(n *node) bool {
		return !n.extra2.empty() && !errTurn.extra2.empty() && string(s.a.bytes(n.extra2)) != string(s.a.bytes(errTurn.extra2))
	}
	for _, ni := range path {
		n := s.nd(ni)
		switch {
		case n.role == roleAssistant && n.flags&fMirror == 0:
			if n.flags&fError != 0 {
				if errTurn == nil {
					errTurn = n
				}
				continue
			}
			if errTurn != nil && differs(n) {
				s.chain(errTurn, n)
			}
			errTurn = nil
		case n.kind == kindSnapshot && errTurn != nil && differs(n):
			s.chain(errTurn, n)
			errTurn = nil
		}
	}
}

func (s *scan) chain(from, to *node) {
	fm, tm, reason := s.str(from.extra2), s.str(to.extra2), s.str(from.extra)
	s.add("fallback.chain", to.line, s.str(to.id), fmt.Sprintf("model switched from %s to %s at line %d after the error turn at line %d (%q): a model fallback",
		fm, tm, to.line, from.line, preview(reason, 120)), "",
		map[string]any{"from": fm, "to": tm, "reason": reason, "errorEntryId": s.str(from.id), "errorLine": from.line})
}

type send struct {
	node     *node // the assistant turn that called the tool
	callID   string
	text     string
	resultTs int64
	msgID    string
}

// delivery looks for turns whose message-tool sends reached the user only at turn end
// (context-and-forensics.md §4.3).
func (s *scan) delivery(path []int32) {
	var sends []send
	byCall := map[string]int{}
	var turnEnd int64
	var turnEndNode *node
	var mirrors []int64
	flush := func() {
		if len(sends) >= 2 && turnEndNode != nil {
			s.batched(sends, mirrors, turnEnd, turnEndNode)
		}
		sends, mirrors, turnEnd, turnEndNode = sends[:0], mirrors[:0], 0, nil
		clear(byCall)
	}
	for _, ni := range path {
		n := s.nd(ni)
		switch n.role {
		case roleUser:
			if n.flags&fRetryText == 0 {
				flush()
			}
		case roleAssistant:
			if n.flags&fMirror != 0 {
				mirrors = append(mirrors, n.ts)
				continue
			}
			turnEnd, turnEndNode = n.ts, n
			for k := n.callStart; k < n.callStart+n.callN; k++ {
				if c := &s.calls[k]; c.send && !c.id.empty() {
					byCall[s.str(c.id)] = len(sends)
					sends = append(sends, send{node: n, callID: s.str(c.id), text: s.str(c.text)})
				}
			}
		case roleToolResult:
			if len(byCall) == 0 {
				continue
			}
			if k, ok := byCall[string(s.a.bytes(n.extra))]; ok && n.flags&fResultErr == 0 {
				sends[k].resultTs = n.ts
				if id, ok := strings.CutPrefix(s.str(n.extra2), "message#"); ok {
					sends[k].msgID = id
				}
			}
		}
	}
	flush()
}

func (s *scan) batched(all []send, mirrors []int64, turnEnd int64, end *node) {
	var sends []send
	for _, x := range all {
		if x.resultTs > 0 {
			sends = append(sends, x)
		}
	}
	if len(sends) < 2 || turnEnd == 0 {
		return
	}
	tail := turnEnd - sends[0].resultTs
	status := ""
	var delivered []int64
	source := ""
	if len(mirrors) >= len(sends) {
		// delivery-mirror rows give delivery times: the i-th mirror of the turn is the i-th send
		delivered, source = mirrors[len(mirrors)-len(sends):], "delivery-mirror"
	} else if s.deliveries != nil {
		d := make([]int64, 0, len(sends))
		for _, x := range sends {
			if t, ok := s.deliveries[x.msgID]; ok && x.msgID != "" {
				d = append(d, t)
			}
		}
		if len(d) == len(sends) {
			delivered, source = d, "gateway log"
		}
	}
	switch {
	case delivered != nil:
		late := 0
		for _, d := range delivered {
			if d >= turnEnd-2000 {
				late++
			}
		}
		if late < len(sends) || tail <= 2000 {
			return // delivered as they were sent
		}
		status = "confirmed"
	case tail > s.opts.batchTail():
		status = "at-risk"
	default:
		return
	}
	first := sends[0].node
	var msgs []map[string]any
	for i, x := range sends {
		m := map[string]any{"toolCallId": x.callID, "text": x.text, "sentAt": msTS(x.resultTs)}
		if x.msgID != "" {
			m["messageId"] = x.msgID
		}
		if delivered != nil {
			m["deliveredAt"] = msTS(delivered[i])
			m["delayMs"] = delivered[i] - x.resultTs
		} else {
			m["turnEndDelayMs"] = turnEnd - x.resultTs
		}
		msgs = append(msgs, m)
	}
	ev := map[string]any{"status": status, "sends": len(sends), "turnEnd": msTS(turnEnd), "turnEndEntryId": s.str(end.id), "turnEndLine": end.line, "messages": msgs}
	if source != "" {
		ev["deliverySource"] = source
	}
	var msg, hint string
	if status == "confirmed" {
		msg = fmt.Sprintf("%d message-tool sends from line %d on, in the turn ending at line %d, were delivered together at turn end (%s times), up to %s after the agent sent them (bug #16137): the user saw nothing while the agent worked",
			len(sends), first.line, end.line, source, time.Duration(tail)*time.Millisecond)
	} else {
		msg = fmt.Sprintf("%d message-tool sends from line %d on, in the turn ending at line %d, were made up to %s before the turn ended; with the batching bug (#16137) the user got them all only at turn end",
			len(sends), first.line, end.line, time.Duration(tail)*time.Millisecond)
		hint = "Confirm with gateway logs: clawdoctor audit --logs /tmp/openclaw/openclaw-*.log"
	}
	before := len(s.out)
	s.add("delivery.message-batched", first.line, s.str(first.id), msg, hint, ev)
	if status == "at-risk" && len(s.out) > before {
		// without delivery times it is a suspicion, not a finding of fact
		s.out[len(s.out)-1].Severity = Info
	}
}

func msTS(ms int64) string {
	if ms == 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// replayHint is the advice for problems no clawdoctor command rewrites in the file (OpenClaw
// drops, moves or pairs them in memory when it sends the session): look at what it would send.
func replayHint(name string) string {
	return "To see what OpenClaw would send, run: clawdoctor replay --provider P --model M " + name
}

// repairHint is the advice for problems clawdoctor repair fixes in the file.
func (s *scan) repairHint(flags string) string { return "Run: clawdoctor repair " + flags + s.name }
