package store

import (
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"path/filepath"
	"runtime"
	"strings"
)

// Resolver finds the transcript of each entry of one sessions dir, as OpenClaw's
// resolveSessionFilePath does (store.md §1.3).
type Resolver struct {
	// SessionsDir is the absolute sessions dir, symlinks resolved when possible.
	SessionsDir string
	// AgentID is the normalized id of the agent owning SessionsDir ("" when unknown).
	AgentID string
	// StateDir is the state dir (for an agent's default sessions dir), "" when unknown.
	StateDir string
}

// NewResolver returns a Resolver for sessionsDir. Empty agentID and stateDir are taken from
// the layout <state>/agents/<id>/sessions when sessionsDir has it.
func NewResolver(sessionsDir, agentID, stateDir string) Resolver {
	abs, err := filepath.Abs(sessionsDir)
	if err != nil {
		abs = filepath.Clean(sessionsDir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r := Resolver{SessionsDir: abs, AgentID: agentID, StateDir: stateDir}
	if id, root, ok := agentOfSessionsDir(abs); ok {
		if r.AgentID == "" {
			r.AgentID = id
		}
		if r.StateDir == "" {
			r.StateDir = root
		}
	}
	if r.AgentID != "" {
		r.AgentID = NormalizeAgentID(r.AgentID)
	}
	return r
}

// agentOfSessionsDir splits <root>/agents/<id>/sessions.
func agentOfSessionsDir(dir string) (id, root string, ok bool) {
	if filepath.Base(dir) != "sessions" {
		return "", "", false
	}
	agentDir := filepath.Dir(dir)
	agents := filepath.Dir(agentDir)
	if filepath.Base(agents) != "agents" {
		return "", "", false
	}
	return filepath.Base(agentDir), filepath.Dir(agents), true
}

// How a transcript path was found.
const (
	ViaDefault     = "default"      // <sessionsDir>/<sessionId>.jsonl, no sessionFile
	ViaSessionFile = "session-file" // sessionFile inside the sessions dir (relative or absolute)
	ViaRemapped    = "remapped"     // absolute sessionFile of another root, remapped by agent
	ViaStructural  = "structural"   // absolute .../agents/<x>/sessions/<file> kept as is (outside)
	ViaFallback    = "fallback"     // sessionFile rejected, <sessionsDir>/<sessionId>.jsonl used
)

// Transcript is where an entry's transcript is.
type Transcript struct {
	// Path is the absolute transcript path; "" when neither sessionFile nor sessionId gives
	// one (then Rejected says why).
	Path string `json:"path"`
	Via  string `json:"via"`
	// Outside is set when Path is not directly inside the sessions dir: clawdoctor must not
	// touch it, and OpenClaw's maintenance skips it too.
	Outside bool `json:"outside,omitempty"`
	// Rejected says why sessionFile was not used ("" when it was used or absent).
	Rejected string `json:"rejected,omitempty"`
	// Stale is set when sessionFile names another session's generated <otherId>.jsonl.
	Stale bool `json:"stale,omitempty"`
	// Foreign is set for a sessionFile written on another OS: a Windows path on a POSIX host
	// (read with '\' as separator; OpenClaw on a POSIX host would not find it at all), or a
	// POSIX path on a Windows host (see hostPath).
	Foreign bool `json:"foreign,omitempty"`
}

var reWindowsAbs = lazyre.New(`^(?:[A-Za-z]:[\\/]|\\\\)`)

// hostWindows is whether clawdoctor runs on Windows (a var: tests take both sides).
var hostWindows = runtime.GOOS == "windows"

// hostPath turns a sessionFile into this host's form and says whether it was written on
// another OS (Foreign). On a POSIX host an absolute Windows path (a drive letter or UNC) is
// read with "\" as separator and without its drive, so the agents/<id>/sessions remap finds
// it. On a Windows host such a path is native and stays as it is, while a POSIX absolute path
// (a store copied from Linux or macOS) is foreign: it is taken on the sessions dir's volume
// (vol), as Node's path.win32.resolve takes a rooted path, so the same remap applies.
func hostPath(cand string, windowsHost bool, vol string) (string, bool) {
	switch {
	case !windowsHost && reWindowsAbs.MatchString(cand):
		cand = strings.ReplaceAll(cand, `\`, "/")
		if len(cand) > 1 && cand[1] == ':' {
			cand = cand[2:]
		}
		return "/" + strings.TrimLeft(cand, "/"), true
	case windowsHost && !reWindowsAbs.MatchString(cand) && (strings.HasPrefix(cand, "/") || strings.HasPrefix(cand, `\`)):
		return vol + strings.ReplaceAll(cand, "/", `\`), true
	}
	return cand, false
}

// Transcript resolves e's transcript.
func (r Resolver) Transcript(e Entry) Transcript {
	return r.Resolve(e.SessionID(), e.SessionFile())
}

// Resolve resolves a transcript from a session id and an optional sessionFile value.
func (r Resolver) Resolve(sessionID, sessionFile string) Transcript {
	var t Transcript
	if cand := strings.TrimSpace(sessionFile); cand != "" {
		cand, t.Foreign = hostPath(cand, hostWindows, filepath.VolumeName(r.SessionsDir))
		p, via, why := r.within(cand)
		if why == "" {
			t.Path, t.Via = p, via
			t.Outside = !r.inDir(p)
			n := Classify(filepath.Base(p))
			sid := strings.TrimSpace(sessionID)
			t.Stale = sid != "" && n.Kind == KindTranscript && ValidSessionID(n.SessionID) && n.SessionID != sid
			return t
		}
		t.Rejected = why
	}
	sid := strings.TrimSpace(sessionID)
	if !ValidSessionID(sid) {
		if t.Rejected != "" {
			t.Rejected += "; "
		}
		t.Rejected += "no valid sessionId"
		t.Via = ViaFallback
		return t
	}
	t.Path = filepath.Join(r.SessionsDir, sid+".jsonl")
	t.Via = ViaDefault
	if t.Rejected != "" {
		t.Via = ViaFallback
	}
	return t
}

// within mirrors resolvePathWithinSessionsDir: it returns the path and how it was found, or
// why the candidate is rejected. It is lexical: unlike OpenClaw it does not realpath the
// candidate (safefile.Confine checks symlinks before anything is written).
func (r Resolver) within(cand string) (path, via, why string) {
	slash := filepath.FromSlash(cand)
	if !filepath.IsAbs(slash) {
		if strings.HasPrefix(cand, "..") {
			return "", "", "relative sessionFile leaves the sessions dir"
		}
		p := filepath.Join(r.SessionsDir, slash)
		if !isWithin(r.SessionsDir, p) || p == r.SessionsDir {
			return "", "", "relative sessionFile leaves the sessions dir"
		}
		return p, ViaSessionFile, ""
	}
	p := filepath.Clean(slash)
	if isWithin(r.SessionsDir, p) && p != r.SessionsDir {
		return p, ViaSessionFile, ""
	}
	// Absolute, outside: the sibling/same-agent remaps of cross-root migrations.
	try := func(agent string) string {
		agent = NormalizeAgentID(agent)
		if _, root, ok := agentOfSessionsDir(r.SessionsDir); ok {
			sib := filepath.Join(root, "agents", agent, "sessions")
			if isWithin(sib, p) && p != sib {
				return p
			}
		}
		if r.StateDir != "" {
			def := filepath.Join(r.StateDir, "agents", agent, "sessions")
			if isWithin(def, p) && p != def {
				return p
			}
		}
		return ""
	}
	parts, idx := agentSessionsParts(p)
	if r.AgentID != "" {
		if q := try(r.AgentID); q != "" {
			return q, ViaSessionFile, ""
		}
		// Same agent, another root: keep only the file name, in this agent's sessions dir.
		if idx >= 0 && len(parts) == idx+2 && NormalizeAgentID(parts[idx-1]) == r.AgentID && okFileName(parts[idx+1]) {
			dir := r.SessionsDir
			if r.StateDir != "" {
				dir = filepath.Join(r.StateDir, "agents", r.AgentID, "sessions")
			}
			return filepath.Join(dir, parts[idx+1]), ViaRemapped, ""
		}
	}
	if idx >= 0 {
		agent := parts[idx-1]
		if q := try(agent); q != "" {
			return q, ViaSessionFile, ""
		}
		if NormalizeAgentID(agent) == strings.ToLower(agent) && len(parts) == idx+2 && okFileName(parts[idx+1]) {
			return p, ViaStructural, ""
		}
	}
	return "", "", "absolute sessionFile outside the sessions dir"
}

func okFileName(s string) bool { return s != "" && s != "." && s != ".." }

// agentSessionsParts splits p and finds the last "sessions" part preceded by agents/<id>;
// it returns the parts and that index, or -1.
func agentSessionsParts(p string) ([]string, int) {
	var parts []string
	for _, s := range strings.Split(filepath.ToSlash(p), "/") {
		if s != "" {
			parts = append(parts, s)
		}
	}
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == "sessions" {
			if i >= 2 && parts[i-2] == "agents" {
				return parts, i
			}
			return parts, -1
		}
	}
	return parts, -1
}

func (r Resolver) inDir(p string) bool {
	return filepath.Dir(p) == r.SessionsDir
}

func isWithin(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Candidates lists the files that may hold e's transcript, in OpenClaw's archiving order
// (store.md §1.3), restricted to files directly inside the sessions dir: the resolved path
// unless stale, <sessionId>.jsonl, then the stale path.
func (r Resolver) Candidates(e Entry) []string { return r.CandidatesOf(e, r.Transcript(e)) }

// CandidatesOf is Candidates with e's transcript t (r.Transcript(e)) already resolved.
func (r Resolver) CandidatesOf(e Entry, t Transcript) []string {
	var out []string
	add := func(p string) {
		if p == "" || filepath.Dir(p) != r.SessionsDir {
			return
		}
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	if !t.Stale {
		add(t.Path)
	}
	if sid := e.SessionID(); ValidSessionID(sid) {
		add(filepath.Join(r.SessionsDir, sid+".jsonl"))
	}
	if t.Stale {
		add(t.Path)
	}
	return out
}

// TrajectoryFiles returns the two sidecars of a transcript path: X.trajectory.jsonl and
// X.trajectory-path.json for X.jsonl (the suffix is appended when the name does not end in
// .jsonl).
func TrajectoryFiles(transcript string) (runtime, pointer string) {
	base := strings.TrimSuffix(transcript, ".jsonl")
	return base + ".trajectory.jsonl", base + ".trajectory-path.json"
}

// References maps each file name directly inside the sessions dir that some entry points at
// to the keys that reference it: resolved transcripts, their trajectory sidecars and the
// pre/post-compaction checkpoint files (the "referenced" set of OpenClaw's artifact sweep).
func (r Resolver) References(entries []Entry) map[string][]string {
	return r.ReferencesOf(entries, func(i int) Transcript { return r.Transcript(entries[i]) })
}

// ReferencesOf is References with each entry's transcript given by transcript(i) (the
// caller's resolved r.Transcript(entries[i])).
func (r Resolver) ReferencesOf(entries []Entry, transcript func(i int) Transcript) map[string][]string {
	refs := map[string][]string{}
	add := func(p, key string) {
		if p == "" || filepath.Dir(p) != r.SessionsDir {
			return
		}
		name := filepath.Base(p)
		ks := refs[name]
		if len(ks) > 0 && ks[len(ks)-1] == key {
			return
		}
		refs[name] = append(ks, key)
	}
	for i, e := range entries {
		t := transcript(i)
		add(t.Path, e.Key)
		if t.Path != "" {
			rt, ptr := TrajectoryFiles(t.Path)
			add(rt, e.Key)
			add(ptr, e.Key)
		}
		for _, cp := range e.CompactionCheckpoints() {
			for _, f := range []string{cp.Pre.SessionFile, cp.Post.SessionFile} {
				if strings.TrimSpace(f) != "" {
					if p, _, why := r.within(strings.TrimSpace(f)); why == "" {
						add(p, e.Key)
					}
				}
			}
		}
	}
	return refs
}
