package hygiene

import (
	"strings"
)

// SilentReplyToken marks an intentionally silent reply (src/auto-reply/tokens.ts).
const SilentReplyToken = "NO_REPLY"

var (
	silentExact     = jsRe(`(?i)^\s*NO_REPLY(?:\s+NO_REPLY)*\s*$`)
	finalSilent     = jsRe(`(?i)(?:^|[\s*.])NO_REPLY\s*$`)
	taggedReasoning = jsRe(`(?i)^\s*<\s*(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)\b[^<>]*>[\s\S]*?<\s*/\s*(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)\s*>\s*`)
	openReasoning   = jsRe(`(?i)^\s*<\s*(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)\b[^<>]*>`)
	plainReasoning  = jsRe(`(?i)^\s*(?:think(?:ing)?|thought|analysis|reasoning)\s*:?\s*\r?\n`)
	silentIntent    = jsRe(`(?i)^\s*(?:i|i'll|i\s+will|i'm|i\s+am|we|we'll|we\s+will|the\s+assistant|assistant|the\s+bot|bot|openclaw)\s+(?:(?:will\s+)?(?:stay|remain|keep|be)\s+(?:quiet|silent)(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?|(?:do\s+not|don't|dont|will\s+not|won't|would\s+not|should\s+not)\s+(?:reply|respond)(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?|(?:have|has)\s+nothing\s+(?:to|for)\s+(?:say|add|reply|respond))(?:[.!?]+)?\s*$`)
	answerCue       = jsRe(`(?i)\b(?:answer|here(?:'s|\s+is)|tell\s+them|you\s+(?:should|can|could|need|must)|please|try|use|send|service\s+is|resolved|retry|yes|no,|sure)\b`)
	bareReasoning   = jsRe(`(?i)^\s*(?:(?:internal|private)\s+)?(?:reasoning|thinking|thoughts?|analysis)(?:\s+notes?)?\s*$`)
)

// silentReplyPayload is isSilentReplyPayloadText(text, "NO_REPLY"): the token alone, as a JSON
// string, as {"action":"NO_REPLY"}, or after a reasoning prefix.
func silentReplyPayload(text string) bool {
	return silentReplyText(text) || silentJSONString(text) || silentEnvelope(text) || reasoningPrefixedSilent(text)
}

func silentReplyText(text string) bool { return text != "" && silentExact.MatchString(text) }

func silentJSONString(text string) bool {
	t := jsTrim(text)
	if t == "" || !strings.HasPrefix(t, `"`) || !strings.HasSuffix(t, `"`) || !strings.Contains(t, SilentReplyToken) {
		return false
	}
	v, ok := jsonParse(t)
	s, isStr := v.(string)
	return ok && isStr && jsTrim(s) == SilentReplyToken
}

func silentEnvelope(text string) bool {
	t := jsTrim(text)
	if t == "" || !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") || !strings.Contains(t, SilentReplyToken) {
		return false
	}
	o, ok := jsonParseObject(t)
	if !ok || len(o) != 1 {
		return false
	}
	a, ok := o["action"].(string)
	return ok && jsTrim(a) == SilentReplyToken
}

// stripFinalSilentToken is stripFinalSilentToken: the text without a final NO_REPLY, ok false
// when there is none.
func stripFinalSilentToken(text string) (string, bool) {
	loc := finalSilent.FindStringIndex(text)
	stripped := text
	if loc != nil {
		stripped = text[:loc[0]] + text[loc[1]:]
	}
	stripped = jsTrim(stripped)
	if stripped == jsTrim(text) {
		return "", false
	}
	return stripped, true
}

func silentIntentFinalToken(text string) bool {
	w, ok := stripFinalSilentToken(text)
	return ok && (w == "" || silentIntent.MatchString(w))
}

func plainReasoningFinalToken(text string) bool {
	w, ok := stripFinalSilentToken(text)
	if !ok {
		return false
	}
	if w == "" || silentIntent.MatchString(w) {
		return true
	}
	var lines []string
	for _, l := range crlfSplit.Split(w, -1) {
		if l = jsTrim(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > 0 {
		final := lines[len(lines)-1]
		prev := strings.Join(lines[:len(lines)-1], "\n")
		if silentIntent.MatchString(final) && prev != "" && !answerCue.MatchString(prev) {
			return true
		}
	}
	return bareReasoning.MatchString(w)
}

func reasoningPrefixedSilent(text string) bool {
	t := jsTrim(text)
	if t == "" {
		return false
	}
	without := t
	for {
		next := without
		if loc := taggedReasoning.FindStringIndex(without); loc != nil {
			next = without[loc[1]:]
		}
		if next == without {
			break
		}
		without = next
	}
	if without != t {
		return silentReplyText(without) || silentIntentFinalToken(without)
	}
	if loc := openReasoning.FindStringIndex(t); loc != nil {
		rest := t[loc[1]:]
		return silentReplyText(rest) || plainReasoningFinalToken(rest)
	}
	loc := plainReasoning.FindStringIndex(t)
	if loc == nil {
		return false
	}
	rest := t[loc[1]:]
	return silentReplyText(rest) || plainReasoningFinalToken(rest)
}
