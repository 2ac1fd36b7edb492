package audit

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// fOnPath marks the nodes of the active path (set by markPath).
const fOnPath uint16 = 1 << 15

// tree runs the checks that need the whole file: parent links, roots, cycles, compactions, and
// the active-branch checks (tool pairing, lost prompts, fallbacks, message batching).
func (s *scan) tree() {
	if s.nodes.n == 0 {
		return
	}
	s.resolvePending()
	if s.dupIDs {
		// pi's index keeps the last entry of a duplicated id: links made to an earlier one move
		for i := int32(0); i < int32(s.nodes.n); i++ {
			n := s.nd(i)
			if p := n.parentIdx; p >= 0 && s.dupKeys[s.keyOf(p)] {
				if last, ok := s.lookup(s.keyOf(p)); ok {
					n.parentIdx = last
					s.forward = s.forward || last > i
				}
			}
		}
	}
	if s.roots > 1 {
		var ids []string
		var lines []int64
		for _, r := range s.rootIdx[:min(s.roots, len(s.rootIdx))] {
			ids = append(ids, s.idStr(r))
			lines = append(lines, s.det(r).line)
		}
		second := s.rootIdx[1]
		s.add("tree.multiple-roots", lines[1], ids[1], fmt.Sprintf("%d entries have parentId null (first at line %d, another at line %d); only the branch of the last entry is sent to the model, the other trees are dead history",
			s.roots, lines[0], s.det(second).line), "", map[string]any{"roots": s.roots, "rootIds": ids, "rootLines": lines})
	}
	s.cycles()
	path := s.markPath()
	s.compactions()
	s.ids = nil // the id index is not needed any more: free it before the path checks
	checks := []func(*scan){
		func(c *scan) { c.tools(path) },
		func(c *scan) { c.lostPrompts() },
		func(c *scan) { c.fallbackChain(path) },
		func(c *scan) { c.delivery(path) },
	}
	if !s.parallel || s.sizeHint < parallelMin {
		for _, check := range checks {
			check(s)
		}
		return
	}
	// A big file's path checks run side by side, each on a view of the scan (they only read
	// it, and report rules of their own): after the scan they were one core's work, an eighth
	// of the audit of the bench's 1 GiB transcript of tiny entries.
	views := make([]*scan, len(checks))
	base := maps.Clone(s.perRule) // the counts every view starts from
	var wg sync.WaitGroup
	for k, check := range checks {
		views[k] = s.view()
		wg.Go(func() { check(views[k]) })
	}
	wg.Wait()
	for _, v := range views {
		s.merge(v, base)
	}
}

// view is a copy of s for a check that runs beside others: it shares what the scan built
// (read only), reads the spilled logs through readers of its own, and collects its findings
// and rule counts apart for merge.
func (s *scan) view() *scan {
	v := *s
	v.details, v.rares, v.calls, v.pending = s.details.reader(), s.rares.reader(), s.calls.reader(), s.pending.reader()
	v.cold = &coldArena{b: s.cold.b.reader()}
	v.out = nil
	v.perRule = maps.Clone(s.perRule)
	return &v
}

// merge adds what view v found to s, as if its check had run on s: its findings after those
// already there, what it added to the rule counts (base: the counts it started from), the
// first error its readers met. The checks report rules of their own, so each rule's cap
// falls where it did when they ran one after the other.
func (s *scan) merge(v *scan, base map[string]int) {
	s.out = append(s.out, v.out...)
	for rule, n := range v.perRule {
		s.perRule[rule] += n - base[rule]
	}
	for _, e := range [][2]*error{{&s.details.b.err, &v.details.b.err}, {&s.rares.err, &v.rares.err}, {&s.calls.err, &v.calls.err},
		{&s.cold.b.err, &v.cold.b.err}, {&s.pending.err, &v.pending.err}} {
		if *e[0] == nil {
			*e[0] = *e[1]
		}
	}
}

// resolvePending links the entries whose parent came later in the file, and reports the ones
// whose parent is not in the file at all.
func (s *scan) resolvePending() {
	for k := 0; k < s.pending.len(); k++ {
		p := s.pending.at(k)
		if q, ok := s.lookup(p.key); ok {
			s.nd(p.node).parentIdx = q
			s.forward = s.forward || q > p.node
			continue
		}
		id, parent, line := s.idStr(p.node), s.str(p.parent), s.det(p.node).line
		s.add("tree.dangling-parent", line, id, fmt.Sprintf("entry %s at line %d names parent %s, which is not in the file; OpenClaw's context walk stops here and silently drops everything before it",
			id, line, parent), s.repairHint("--relink "), map[string]any{"parentId": parent})
	}
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
				if len(ids) == 50 {
					break
				}
				ids = append(ids, s.idStr(x))
			}
			n := len(stack) - start
			line := s.det(cur).line
			s.add("tree.cycle", line, s.idStr(cur), fmt.Sprintf("parentId links form a cycle through %d entries (%s); the context walk never reaches a root",
				n, strings.Join(firstN(ids, 5), " → ")), replayHint(s.name), map[string]any{"cycle": ids})
			// break the cycle so later walks end
			s.nd(cur).parentIdx = -1
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

// markPath finds the active path (spec transcript.md §2.9): from the root to the active leaf,
// the last entry in file order, or for OpenClaw agent-core files the target of the last leaf
// row, ignoring appendMode "side" rows. It marks its nodes with fOnPath. A parent always comes
// before its children in a file OpenClaw wrote, so the path is the marked nodes in file order
// and nothing more is kept; only when some parent comes later is the path returned as a list.
func (s *scan) markPath() (path []int32) {
	leaf := int32(-1)
	for i := int32(s.nodes.n) - 1; i >= 0; i-- {
		n := s.nd(i)
		if n.flags&fSide != 0 {
			continue
		}
		if n.kind == kindLeaf {
			d := s.det(i)
			if d.extraKey == 0 {
				return nil // leaf moved to null: empty context
			}
			if t, ok := s.lookup(d.extraKey); ok {
				leaf = t
			}
			break
		}
		if n.flags&(fKeyPacked|fKeyHashed) == 0 {
			continue
		}
		leaf = i
		break
	}
	for cur, steps := leaf, 0; cur >= 0 && steps <= s.nodes.n; steps++ {
		n := s.nd(cur)
		if n.flags&fOnPath != 0 {
			break
		}
		if n.kind != kindLeaf {
			n.flags |= fOnPath
			if s.forward {
				path = append(path, cur)
			}
		}
		cur = n.parentIdx
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// onPath calls fn for each node of the active path, root first, with its position.
func (s *scan) onPath(path []int32, fn func(ni int32, pos int)) {
	if s.forward {
		for pos, ni := range path {
			fn(ni, pos)
		}
		return
	}
	pos := 0
	for i := int32(0); i < int32(s.nodes.n); i++ {
		if s.nd(i).flags&fOnPath != 0 {
			fn(i, pos)
			pos++
		}
	}
}

// compactions checks that every compaction's firstKeptEntryId is an ancestor of it. The walk
// up from a compaction stops as soon as it passes the kept entry's place in the file (an
// ancestor always comes earlier, unless some parent comes later: then it walks to the root).
func (s *scan) compactions() {
	for i := int32(0); i < int32(s.nodes.n); i++ {
		n := s.nd(i)
		if n.kind != kindCompaction {
			continue
		}
		d := s.det(i)
		if d.extra.empty() {
			continue
		}
		kept, ok := s.lookup(d.extraKey)
		found := false
		if ok && !s.forward && n.flags&fOnPath != 0 && s.nd(kept).flags&fOnPath != 0 {
			found = kept < i // on the path, what comes before it is its ancestry
		} else if ok {
			for cur, steps := n.parentIdx, 0; cur >= 0 && steps <= s.nodes.n; steps++ {
				if cur == kept {
					found = true
					break
				}
				if cur < kept && !s.forward {
					break
				}
				cur = s.nd(cur).parentIdx
			}
		}
		if !found {
			why := "is not in the file"
			if ok {
				why = fmt.Sprintf("is at line %d but not on the compaction's own branch before it", s.det(kept).line)
			}
			id, first := s.idStr(i), s.str(d.extra)
			s.add("compaction.first-kept-missing", d.line, id, fmt.Sprintf("compaction %s at line %d keeps from entry %s, which %s; no pre-compaction messages are kept, the model sees only the summary",
				id, d.line, first, why), "", map[string]any{"firstKeptEntryId": first})
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

// openCall is a tool call on the active path that has no result yet.
type openCall struct {
	call    int32 // into s.calls
	asst    int32 // the calling assistant node
	asstPos int   // its position on the path
	errTurn bool  // the turn ended in error or aborted: OpenClaw gives it no results
}

// tools checks tool-call/result pairing on the active path (spec transcript.md §4.3): every call
// must be answered by exactly one result, right after the calling assistant turn. Memory is
// what is still open plus one key and line per answered call (for duplicate results).
func (s *scan) tools(path []int32) {
	open := map[uint64]openCall{}
	// call key → its first result's node: 8 bytes a slot, the key itself read back from the
	// result's detail only when the 32-bit tag matches
	answered := newKeyMap(func(v int32) uint64 { return s.det(v).extraKey })
	var unpaired []openCall
	contig := -1 // path position of the assistant whose result block is still unbroken
	s.onPath(path, func(ni int32, pos int) {
		n := s.nd(ni)
		if !n.contextMessage() || n.flags&fMirror != 0 {
			return // transcript-only rows (delivery-mirror, gateway-injected) never reach the model
		}
		switch n.role {
		case roleAssistant:
			contig = -1
			if n.flags&fCalls == 0 {
				return // no calls: nothing to pair, and its detail is not read
			}
			d := s.det(ni)
			if d.callN > 0 {
				contig = pos
			}
			for k := d.callStart(); k < d.callStart()+int(d.callN); k++ {
				c := s.calls.at(k)
				if c.invalid != 0 {
					id, name, cid := s.idStr(ni), s.name16(c.name), s.str(c.id)
					s.add("tool.invalid-call", d.line, id, fmt.Sprintf("tool call %q (%q) in assistant turn %s at line %d is invalid: %s; OpenClaw drops it on replay (and the whole turn if nothing else is left)",
						cid, name, id, d.line, invalidReasons[c.invalid]), replayHint(s.name), map[string]any{"toolCallId": cid, "toolName": name, "problem": invalidReasons[c.invalid]})
				}
				if c.key == 0 {
					continue
				}
				old, wasOpen := open[c.key]
				if wasOpen && old.asst == ni {
					wasOpen = false // the same id twice in one turn is not a reuse across turns
				} else if wasOpen {
					s.reusedCall(ni, d, c, s.det(old.asst).line, "unanswered")
				} else if fi, ok := answered.get(c.key); ok {
					s.reusedCall(ni, d, c, s.det(fi).line, "answered")
				}
				if wasOpen && !old.errTurn {
					unpaired = append(unpaired, old) // its results now go to the later call
				}
				open[c.key] = openCall{call: int32(k), asst: ni, asstPos: pos, errTurn: n.flags&fError != 0}
			}
		case roleToolResult:
			d := s.det(ni)
			rk := d.extraKey
			if oc, ok := open[rk]; ok && rk != 0 {
				delete(open, rk)
				answered.set(rk, ni)
				if contig != oc.asstPos {
					ad, c := s.det(oc.asst), s.calls.at(int(oc.call))
					rid, name := s.str(d.extra), s.name16(c.name)
					s.add("tool.displaced-result", d.line, s.idStr(ni), fmt.Sprintf("the result of tool call %q (%s) is at line %d, not right after its call at line %d (other messages in between); providers require results immediately after the call, OpenClaw moves it on replay",
						rid, name, d.line, ad.line), replayHint(s.name), map[string]any{"toolCallId": rid, "toolName": name, "callLine": ad.line, "callEntryId": s.idStr(oc.asst)})
				}
				return
			}
			rid := s.str(d.extra)
			if fi, ok := answered.get(rk); ok && rk != 0 {
				first := s.det(fi)
				s.add("tool.duplicate-result", d.line, s.idStr(ni), fmt.Sprintf("tool call %q (%s) already has a result at line %d; this second result at line %d is dropped on replay",
					rid, s.name16(first.model), first.line, d.line), replayHint(s.name), map[string]any{"toolCallId": rid, "toolName": s.name16(first.model), "firstResultLine": first.line})
				return
			}
			s.add("tool.orphan-result", d.line, s.idStr(ni), fmt.Sprintf("tool result %s at line %d answers tool call %q, which no earlier assistant turn on the active branch made; OpenClaw drops it on replay and strict providers reject it (unexpected tool_use_id)",
				s.idStr(ni), d.line, rid), replayHint(s.name), map[string]any{"toolCallId": rid, "toolName": s.name16(d.model)})
		default:
			contig = -1
		}
	})
	for _, oc := range open {
		if !oc.errTurn {
			unpaired = append(unpaired, oc)
		}
	}
	sortOpen(unpaired)
	for _, oc := range unpaired {
		c, ad := s.calls.at(int(oc.call)), s.det(oc.asst)
		id, cid, name := s.idStr(oc.asst), s.str(c.id), s.name16(c.name)
		s.add("tool.unpaired-call", ad.line, id, fmt.Sprintf("tool call %q (%s) in assistant turn %s at line %d has no result on the active branch; providers reject a call without its result (tool_use without tool_result), so OpenClaw's pairing repair inserts a synthetic result when it sends the session",
			cid, name, id, ad.line), replayHint(s.name)+" (for an OpenAI code-mode turn, clawdoctor repair "+s.name+" writes the missing result)", map[string]any{"toolCallId": cid, "toolName": name})
	}
}

// reusedCall reports a tool call whose id an earlier call on the active path already used.
// What OpenClaw then does is release- and provider-dependent (reusedCallIDFacts).
func (s *scan) reusedCall(ni int32, d detail, c call, earlier int64, state string) {
	id, cid, name := s.idStr(ni), s.str(c.id), s.name16(c.name)
	where := fmt.Sprintf("the call answered at line %d", earlier)
	if state == "unanswered" {
		where = fmt.Sprintf("the unanswered call at line %d", earlier)
	}
	s.add("tool.reused-call-id", d.line, id, fmt.Sprintf("tool call %q (%s) in assistant turn %s at line %d reuses the id of %s; %s",
		cid, name, id, d.line, where, reusedCallIDEffect), replayHint(s.name),
		map[string]any{"toolCallId": cid, "toolName": name, "earlierLine": earlier, "earlierCall": state,
			"losesResult": reusedCallIDLoses, "pairsByOccurrence": reusedCallIDPairs})
}

func sortOpen(cs []openCall) {
	slices.SortFunc(cs, func(a, b openCall) int { return cmp.Compare(a.call, b.call) })
}

// lostPrompts flags user turns that are exactly the old generic retry text and recovers the
// prompt it replaced from the previous real user turn on the same branch.
func (s *scan) lostPrompts() {
	for i := int32(0); i < int32(s.nodes.n); i++ {
		n := s.nd(i)
		if n.role != roleUser || n.flags&fRetryText == 0 {
			continue
		}
		id, line := s.idStr(i), s.det(i).line
		ev := map[string]any{"retryText": RetryText}
		answered := false
		prompt := int32(-1)
		for cur, steps := n.parentIdx, 0; cur >= 0 && steps <= s.nodes.n; steps++ {
			p := s.nd(cur)
			if p.role == roleAssistant && p.flags&(fError|fMirror) == 0 && p.flags&fHasContent != 0 {
				answered = true
			}
			if p.role == roleUser && p.flags&fRetryText == 0 {
				prompt = cur
				break
			}
			cur = p.parentIdx
		}
		var msg, hint string
		if prompt >= 0 {
			pd := s.det(prompt)
			text := s.str(pd.extra)
			ev["replacedPrompt"] = text
			ev["promptEntryId"] = s.idStr(prompt)
			ev["promptLine"] = pd.line
			ev["answeredBeforeRetry"] = answered
			tail := "the fallback model answered the generic text instead of the user's request"
			if !answered {
				tail = "the request was never answered: the task exists only in history and the fallback model saw \"continue\""
			}
			msg = fmt.Sprintf("user turn %s at line %d is OpenClaw's generic fallback retry text, not the user's prompt (bug #65760, fixed in 2026.4.14); the replaced prompt is most likely line %d: %q; %s",
				id, line, pd.line, preview(text, 160), tail)
			hint = "Upgrade OpenClaw and re-send that prompt"
		} else {
			ev["unrecoverable"] = true
			msg = fmt.Sprintf("user turn %s at line %d is OpenClaw's generic fallback retry text, not the user's prompt (bug #65760, fixed in 2026.4.14); no earlier user turn on this branch, so the original prompt (e.g. a subagent task or a sessions_send message) never reached the transcript and cannot be recovered",
				id, line)
			hint = "Upgrade OpenClaw"
		}
		s.add("fallback.lost-prompt", line, id, msg, hint, ev)
	}
}

// fallbackChain reports model switches after error turns on the active path.
func (s *scan) fallbackChain(path []int32) {
	errTurn := int32(-1)
	var errDet detail
	s.onPath(path, func(ni int32, _ int) {
		n := s.nd(ni)
		isAsst := n.role == roleAssistant && n.flags&fMirror == 0
		if !isAsst && !(n.kind == kindSnapshot && errTurn >= 0) {
			return
		}
		if isAsst && errTurn < 0 && n.flags&fError == 0 {
			return // an answer with no error turn before it: nothing to compare, no detail read
		}
		d := s.det(ni)
		differs := errTurn >= 0 && d.model != 0 && errDet.model != 0 && d.model != errDet.model
		if isAsst {
			if n.flags&fError != 0 {
				if errTurn < 0 {
					errTurn, errDet = ni, d
				}
				return
			}
			if differs {
				s.chain(errTurn, errDet, ni, d)
			}
			errTurn = -1
			return
		}
		if differs {
			s.chain(errTurn, errDet, ni, d)
			errTurn = -1
		}
	})
}

func (s *scan) chain(from int32, fd detail, to int32, td detail) {
	fm, tm, reason := s.name16(fd.model), s.name16(td.model), s.str(fd.extra)
	s.add("fallback.chain", td.line, s.idStr(to), fmt.Sprintf("model switched from %s to %s at line %d after the error turn at line %d (%q): a model fallback",
		fm, tm, td.line, fd.line, preview(reason, 120)), "",
		map[string]any{"from": fm, "to": tm, "reason": reason, "errorEntryId": s.idStr(from), "errorLine": fd.line})
}

// turn is the assistant node ending a turn, for the batching check.
type turn struct {
	node int32
	line int64
}

type send struct {
	first    turn // the assistant turn that called the tool
	callID   string
	text     string
	resultTs int64
	msgID    string
}

// delivery looks for turns whose message-tool sends reached the user only at turn end
// (context-and-forensics.md §4.3).
func (s *scan) delivery(path []int32) {
	var sends []send
	byCall := map[uint64]int{}
	end := int32(-1) // the turn's last assistant entry; its detail is read only if it is needed
	var mirrors []int64
	flush := func() {
		if len(sends) >= 2 && end >= 0 {
			d := s.det(end)
			s.batched(sends, mirrors, d.ts, turn{node: end, line: d.line})
		}
		sends, mirrors, end = sends[:0], mirrors[:0], -1
		clear(byCall)
	}
	s.onPath(path, func(ni int32, _ int) {
		n := s.nd(ni)
		switch n.role {
		case roleUser:
			if n.flags&fRetryText == 0 {
				flush()
			}
		case roleAssistant:
			if n.flags&fMirror != 0 {
				mirrors = append(mirrors, s.det(ni).ts)
				return
			}
			end = ni
			if n.flags&fCalls == 0 {
				return
			}
			d := s.det(ni)
			for k := d.callStart(); k < d.callStart()+int(d.callN); k++ {
				if c := s.calls.at(k); c.send && c.key != 0 {
					byCall[c.key] = len(sends)
					sends = append(sends, send{first: turn{node: ni, line: d.line}, callID: s.str(c.id), text: s.str(c.text)})
				}
			}
		case roleToolResult:
			if len(byCall) == 0 {
				return
			}
			d := s.det(ni)
			if k, ok := byCall[d.extraKey]; ok && n.flags&fResultErr == 0 {
				sends[k].resultTs = d.ts
				sends[k].msgID = s.str(s.rareOf(d).extra2)
			}
		}
	})
	flush()
}

func (s *scan) batched(all []send, mirrors []int64, turnEnd int64, end turn) {
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
	first := sends[0].first
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
	ev := map[string]any{"status": status, "sends": len(sends), "turnEnd": msTS(turnEnd), "turnEndEntryId": s.idStr(end.node), "turnEndLine": end.line, "messages": msgs}
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
	s.add("delivery.message-batched", first.line, s.idStr(first.node), msg, hint, ev)
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
