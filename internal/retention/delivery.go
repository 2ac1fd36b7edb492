package retention

import (
	"strings"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// This file reproduces, for sizes only, the load-time delivery normalization of OpenClaw's
// session store (normalizeSessionEntryDelivery, delivery-context.shared.ts): an entry with a
// delivery target but no route gets a synthesized route and reconciled deliveryContext and
// last* fields. The disk budget measures the store as the gateway would write it back, so the
// projected store size must include what this adds.

type dctx struct {
	channel, to, account string
	thread               *fastjson.Value // string or number, as given
	threadStr            string
}

func (c *dctx) empty() bool {
	return c == nil || c.channel == "" && c.to == "" && c.account == "" && c.thread == nil
}

func trimmedStr(v *fastjson.Value) string {
	s, _ := fstr(v)
	return strings.TrimSpace(s)
}

func normThread(v *fastjson.Value) (*fastjson.Value, string) {
	if v == nil {
		return nil, ""
	}
	switch v.Type() {
	case fastjson.TypeString:
		s := trimmedStr(v)
		if s == "" {
			return nil, ""
		}
		return v, s
	case fastjson.TypeNumber:
		return v, v.String()
	}
	return nil, ""
}

// normCtx is normalizeDeliveryContext.
func normCtx(channel, to, account string, thread *fastjson.Value) *dctx {
	c := &dctx{channel: strings.ToLower(strings.TrimSpace(channel)), to: strings.TrimSpace(to), account: strings.ToLower(strings.TrimSpace(account))}
	c.thread, c.threadStr = normThread(thread)
	if c.empty() {
		return nil
	}
	return c
}

// mergeCtx is mergeDeliveryContext.
func mergeCtx(p, f *dctx) *dctx {
	if p == nil && f == nil {
		return nil
	}
	if p == nil {
		return f
	}
	if f == nil {
		return p
	}
	if p.channel != "" && f.channel != "" && p.channel != f.channel {
		return p
	}
	out := *p
	if out.channel == "" {
		out.channel = f.channel
	}
	if out.to == "" {
		out.to = f.to
	}
	if out.account == "" {
		out.account = f.account
	}
	if out.thread == nil {
		out.thread, out.threadStr = f.thread, f.threadStr
	}
	return &out
}

// jsStrLen is the length of JSON.stringify(s).
func jsStrLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n += 2
			i++
		case c < 0x20:
			n += 6
			i++
		case c < utf8.RuneSelf:
			n++
			i++
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			n += size
			i += size
		}
	}
	return n
}

// jsLen is the length of JSON.stringify(v, null, 2) for v nested at depth (0 = top).
func jsLen(v *fastjson.Value, depth int) int {
	switch v.Type() {
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		return jsStrLen(string(b))
	case fastjson.TypeNumber:
		return len(v.String())
	case fastjson.TypeTrue, fastjson.TypeNull:
		return 4
	case fastjson.TypeFalse:
		return 5
	case fastjson.TypeArray:
		items, _ := v.Array()
		if len(items) == 0 {
			return 2
		}
		n := 2 + len(items) - 1 + 1 + 2*depth // [ , ... \n indent ]
		for _, it := range items {
			n += 1 + 2*(depth+1) + jsLen(it, depth+1)
		}
		return n
	case fastjson.TypeObject:
		o, _ := v.Object()
		var members []int
		o.Visit(func(k []byte, val *fastjson.Value) {
			members = append(members, jsStrLen(string(k))+2+jsLen(val, depth+1))
		})
		return objLen(members, depth)
	}
	return 0
}

// objLen is the length of an object at depth whose members (key + ": " + value) have the
// given lengths.
func objLen(members []int, depth int) int {
	if len(members) == 0 {
		return 2
	}
	n := 2 + len(members) - 1 + 1 + 2*depth
	for _, m := range members {
		n += 1 + 2*(depth+1) + m
	}
	return n
}

func memberLen(key string, valueLen int) int { return jsStrLen(key) + 2 + valueLen }

func (c *dctx) threadLen() int {
	if c.thread.Type() == fastjson.TypeString {
		return jsStrLen(c.threadStr)
	}
	return len(c.threadStr)
}

// ctxLen is the length of a normalized deliveryContext object at depth.
func (c *dctx) ctxLen(depth int) int {
	var m []int
	if c.channel != "" {
		m = append(m, memberLen("channel", jsStrLen(c.channel)))
	}
	if c.to != "" {
		m = append(m, memberLen("to", jsStrLen(c.to)))
	}
	if c.account != "" {
		m = append(m, memberLen("accountId", jsStrLen(c.account)))
	}
	if c.thread != nil {
		m = append(m, memberLen("threadId", c.threadLen()))
	}
	return objLen(m, depth)
}

// routeLen is the length of the route synthesized from c at depth.
func (c *dctx) routeLen(depth int) int {
	var m []int
	if c.channel != "" {
		m = append(m, memberLen("channel", jsStrLen(c.channel)))
	}
	if c.account != "" {
		m = append(m, memberLen("accountId", jsStrLen(c.account)))
	}
	if c.to != "" {
		m = append(m, memberLen("target", objLen([]int{memberLen("to", jsStrLen(c.to))}, depth+1)))
	}
	if c.thread != nil {
		m = append(m, memberLen("thread", objLen([]int{memberLen("id", c.threadLen())}, depth+1)))
	}
	return objLen(m, depth)
}

// deliveryDelta returns how many bytes normalizeSessionEntryDelivery adds to the entry's
// JSON.stringify at depth 1, and false when the entry has a shape this does not model (an
// existing route, internal-over-external fallbacks); then the size is taken as written.
func deliveryDelta(obj *fastjson.Object) (int, bool) {
	get := obj.Get
	if get("route") != nil {
		return 0, false
	}
	dcv := get("deliveryContext")
	origin := get("origin")
	thread := get("lastThreadId")
	if thread == nil && dcv != nil {
		thread = dcv.Get("threadId")
	}
	if thread == nil && origin != nil {
		thread = origin.Get("threadId")
	}
	channel := trimmedStr(get("lastChannel"))
	if get("lastChannel") == nil {
		channel = trimmedStr(get("channel"))
	}
	legacy := normCtx(channel, trimmedStr(get("lastTo")), trimmedStr(get("lastAccountId")), thread)
	var dc *dctx
	if dcv != nil && dcv.Type() == fastjson.TypeObject {
		dc = normCtx(trimmedStr(dcv.Get("channel")), trimmedStr(dcv.Get("to")), trimmedStr(dcv.Get("accountId")), dcv.Get("threadId"))
	}
	if legacy != nil && legacy.channel == "webchat" && dc != nil && dc.channel != "" && dc.channel != "webchat" && dc.to != "" {
		return 0, false // internal route with an external delivery target: not modelled
	}
	merged := mergeCtx(legacy, dc)
	if merged == nil {
		return 0, true // nothing to reconcile: the entry is kept as is
	}
	const depth = 2 // members of an entry
	delta := 0
	member := func(key string, newLen int, present bool) {
		old := get(key)
		switch {
		case old != nil && present:
			delta += newLen - jsLen(old, depth)
		case old != nil && !present:
			delta -= 1 + 1 + 2*depth + memberLen(key, jsLen(old, depth)) // ",\n    key: old"
		case old == nil && present:
			delta += 1 + 1 + 2*depth + memberLen(key, newLen)
		}
	}
	member("route", merged.routeLen(depth), true)
	member("deliveryContext", merged.ctxLen(depth), true)
	member("lastChannel", jsStrLen(merged.channel), merged.channel != "")
	member("lastTo", jsStrLen(merged.to), merged.to != "")
	member("lastAccountId", jsStrLen(merged.account), merged.account != "")
	tl := 0
	if merged.thread != nil {
		tl = merged.threadLen()
	}
	member("lastThreadId", tl, merged.thread != nil)
	return delta, true
}
