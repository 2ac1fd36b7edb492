package store

import (
	"fmt"
	"strings"
	"unicode"
)

// This file ports, line for line, how OpenClaw 2026.6.11 reads and judges the command line of
// a lock's holder (session-write-lock: isOpenClawSessionOwnerArgv; gateway-processes:
// readGatewayProcessArgsSync; cmd-argv: parseCmdScriptCommandLine). TestOwnerArgvOracle holds
// the three against the real functions' answers (testdata/oracle/owner_argv.jsonl).

// normalizeOwnerArg is OpenClaw's normalizeOwnerProcessArg: trimmed, "\" as "/", lowercase.
func normalizeOwnerArg(a string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimFunc(a, jsSpace), `\`, "/"))
}

// LooksLikeOpenClaw is OpenClaw 2026.6.11's isOpenClawSessionOwnerArgv: whether a lock
// holder's command line is an OpenClaw process, whose lock it respects: executable openclaw
// (.exe, .cmd, .bat) or a path ending in /openclaw-gateway, an openclaw or openclaw.mjs
// argument, or one of its entry scripts together with a gateway or agent argument. Case and
// "\" separators do not matter (Windows). See OwnerArgvRule for other releases.
func LooksLikeOpenClaw(argv []string) bool {
	n := normalizedArgs(argv)
	if len(n) == 0 {
		return false
	}
	exe := trimExeExt(n[0])
	if exe == "openclaw" || strings.HasSuffix(exe, "/openclaw") || strings.HasSuffix(exe, "/openclaw-gateway") {
		return true
	}
	return openClawArg(n) || (hasAny(n, "gateway", "agent") && entryScript(n, false))
}

// looksLikeOpenClaw735 is 2026.7.35's isOpenClawSessionOwnerArgv: its gateway test
// (isGatewayArgv with the gateway binary allowed: a bare openclaw-gateway counts, and
// openclaw.mjs with a gateway argument) first, then the executable and argument tests of
// 2026.6.11, and an entry script only together with an agent argument.
func looksLikeOpenClaw735(argv []string) bool {
	if gatewayArgv735(argv) {
		return true
	}
	n := normalizedArgs(argv)
	if len(n) == 0 {
		return false
	}
	exe := trimExeExt(n[0])
	if exe == "openclaw" || strings.HasSuffix(exe, "/openclaw") {
		return true
	}
	return openClawArg(n) || (hasAny(n, "agent") && entryScript(n, false))
}

// gatewayArgv735 is 2026.7.35's isGatewayArgv(args, {allowGatewayBinary: true}).
func gatewayArgv735(argv []string) bool {
	n := make([]string, len(argv)) // not filtered: argv[0] is the executable even when blank
	for i, a := range argv {
		n[i] = normalizeOwnerArg(a)
	}
	exe := ""
	if len(n) > 0 {
		exe = trimExeExt(n[0])
	}
	binary := strings.HasSuffix(exe, "/openclaw-gateway") || exe == "openclaw-gateway"
	if !hasAny(n, "gateway") {
		return binary
	}
	return entryScript(n, true) || strings.HasSuffix(exe, "/openclaw") || exe == "openclaw" || binary
}

// OwnerArgvRule is the holder test of the JSONL-era release version ("2026.7.35"): that
// release's from 2026.7.35 on, else 2026.6.11's (the releases between them were not read: they
// are taken to behave as the older one, as openclaw.Release.Behaves does). (store cannot import
// package openclaw, which reads configs through store.)
func OwnerArgvRule(version string) func([]string) bool {
	var y, m, d int
	if _, err := fmt.Sscanf(strings.TrimPrefix(version, "v"), "%d.%d.%d", &y, &m, &d); err == nil &&
		(y > 2026 || y == 2026 && (m > 7 || m == 7 && d >= 35)) {
		return looksLikeOpenClaw735
	}
	return LooksLikeOpenClaw
}

func normalizedArgs(argv []string) []string {
	var n []string
	for _, a := range argv {
		if s := normalizeOwnerArg(a); s != "" {
			n = append(n, s)
		}
	}
	return n
}

func trimExeExt(exe string) string {
	for _, ext := range []string{".bat", ".cmd", ".exe"} {
		if strings.HasSuffix(exe, ext) {
			return strings.TrimSuffix(exe, ext)
		}
	}
	return exe
}

func openClawArg(n []string) bool {
	for _, a := range n {
		if a == "openclaw" || strings.HasSuffix(a, "/openclaw") || a == "openclaw.mjs" || strings.HasSuffix(a, "/openclaw.mjs") {
			return true
		}
	}
	return false
}

func hasAny(n []string, words ...string) bool {
	for _, a := range n {
		for _, w := range words {
			if a == w {
				return true
			}
		}
	}
	return false
}

// entryScript reports whether an argument ends in one of OpenClaw's entry scripts (and, for
// the gateway test of 2026.7.35, openclaw.mjs).
func entryScript(n []string, mjs bool) bool {
	entries := []string{"dist/index.js", "dist/entry.js", "scripts/run-node.mjs", "src/entry.ts", "src/index.ts"}
	if mjs {
		entries = append(entries, "openclaw.mjs")
	}
	for _, a := range n {
		for _, e := range entries {
			if strings.HasSuffix(a, e) {
				return true
			}
		}
	}
	return false
}

// SplitPSCommand is how OpenClaw reads a holder's argv on macOS: the output of
// `ps -o command= -p PID`, trimmed and split at runs of white space (quotes are not honoured:
// a path with a space becomes two arguments, as it does for OpenClaw).
func SplitPSCommand(out string) []string {
	s := strings.TrimFunc(out, jsSpace)
	if s == "" {
		return nil
	}
	return strings.FieldsFunc(s, jsSpace)
}

// ParseWindowsCommandLine is OpenClaw's parseCmdScriptCommandLine, how it splits the
// CommandLine Windows reports for a holder: white space separates arguments outside double
// quotes, quotes are dropped, \" is a literal quote, then ^! becomes ! and %% becomes %.
func ParseWindowsCommandLine(s string) []string {
	var args []string
	var cur strings.Builder
	inQuote := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if c == '\\' && i+1 < len(rs) && rs[i+1] == '"' {
			cur.WriteRune('"')
			i++
			continue
		}
		if c == '"' {
			inQuote = !inQuote
			continue
		}
		if !inQuote && jsSpace(c) {
			if cur.Len() > 0 {
				args = append(args, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(c)
	}
	if cur.Len() > 0 {
		args = append(args, cur.String())
	}
	for i, a := range args {
		args[i] = strings.ReplaceAll(strings.ReplaceAll(a, "^!", "!"), "%%", "%")
	}
	return args
}

// jsSpace is JavaScript's \s (and String.prototype.trim's white space): Unicode space
// separators, the ASCII controls \t \n \v \f \r, U+FEFF, U+2028 and U+2029.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a || (r > 0xff && unicode.Is(unicode.Zs, r))
}
