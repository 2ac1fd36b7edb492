package agentdb

import (
	"path/filepath"
	"strings"
)

// Ref names one session of an agent database where a file path would go:
// "<dir>/openclaw-agent.sqlite#<session id or key>". Findings, validate and replay use it, so
// a session of the database is addressed like a transcript file.
func Ref(dbPath, session string) string { return dbPath + "#" + session }

// ParseRef splits a Ref. ok is false unless the part before the last '#' names an
// openclaw-agent.sqlite and a session follows.
func ParseRef(s string) (dbPath, session string, ok bool) {
	i := strings.LastIndexByte(s, '#')
	if i < 0 || i == len(s)-1 || filepath.Base(s[:i]) != FileName {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// IsDBPath reports whether path names an agent database by its file name.
func IsDBPath(path string) bool { return filepath.Base(path) == FileName }
