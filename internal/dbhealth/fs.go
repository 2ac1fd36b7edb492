package dbhealth

import (
	"github.com/clawdoctor/clawdoctor/internal/lazyre"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Journal policies OpenClaw 2026.9.6 picks for a database path (resolvePathJournalPolicy in
// src/infra/sqlite-wal.ts, ported here): WAL on local disks; rollback journal (journal_mode
// DELETE, no -wal) on network and cross-VM file systems; and on SSHFS it refuses to open the
// database at all.
const (
	PolicyWAL         = "wal"
	PolicyRollback    = "rollback"
	PolicyUnsupported = "unsupported"
)

// Linux statfs magic numbers OpenClaw checks first.
const (
	nfsMagic  = 0x6969
	smbMagic  = 0x517b
	cifsMagic = 0xff534d42
	smb2Magic = 0xfe534d42
	v9fsMagic = 0x01021997
)

// FS is the file system a database lives on, as OpenClaw sees it.
type FS struct {
	Type   string `json:"type,omitempty"` // the mount's type (nfs4, cifs, fuse.sshfs, apfs, ext4, …)
	Source string `json:"source,omitempty"`
	Policy string `json:"policy"`
	Why    string `json:"why,omitempty"`
}

// mountEntry is one line of /proc/self/mountinfo or of `mount`.
type mountEntry struct {
	mountPoint, fsType, source string
}

// parseMountInfo reads /proc/self/mountinfo: field 5 is the mount point, and after " - " the
// type and the source (octal escapes decoded, as OpenClaw's decodeMountInfoPath does).
func parseMountInfo(s string) []mountEntry {
	var out []mountEntry
	for _, line := range strings.Split(s, "\n") {
		i := strings.Index(line, " - ")
		if i < 0 {
			continue
		}
		fields := strings.Split(line[:i], " ")
		suffix := strings.Split(line[i+3:], " ")
		if len(fields) < 5 || fields[4] == "" || len(suffix) == 0 || suffix[0] == "" {
			continue
		}
		e := mountEntry{mountPoint: unescapeMount(fields[4]), fsType: suffix[0]}
		if len(suffix) > 1 && suffix[1] != "" {
			e.source = unescapeMount(suffix[1])
		}
		out = append(out, e)
	}
	return out
}

var octal = lazyre.New(`\\([0-7]{3})`)

func unescapeMount(s string) string {
	return octal.ReplaceAllStringFunc(s, func(m string) string {
		n := (m[1]-'0')*64 + (m[2]-'0')*8 + (m[3] - '0')
		return string([]byte{n})
	})
}

var (
	linuxMount = lazyre.New(`^(.+) on (.+) type ([^,\s)]+) \(`)
	bsdMount   = lazyre.New(`^(.+) on (.+) \(([^,\s)]+)`)
)

// parseMountCommand reads the output of `mount` (Linux "SRC on DIR type T (…)", BSD and macOS
// "SRC on DIR (T, …)").
func parseMountCommand(s string) []mountEntry {
	var out []mountEntry
	for _, line := range strings.Split(s, "\n") {
		if m := linuxMount.FindStringSubmatch(line); m != nil {
			out = append(out, mountEntry{source: m[1], mountPoint: m[2], fsType: m[3]})
			continue
		}
		if m := bsdMount.FindStringSubmatch(line); m != nil {
			out = append(out, mountEntry{source: m[1], mountPoint: m[2], fsType: m[3]})
		}
	}
	return out
}

var sshfsSource = lazyre.New(`^(?:[^/\s:]+@)?[^/\s:]+:.*`)

func isSSHFSSource(src string) bool {
	if src == "" {
		return false
	}
	n := strings.ToLower(src)
	return n == "sshfs" || strings.HasPrefix(n, "sshfs#") || strings.HasPrefix(n, "sshfs@") || sshfsSource.MatchString(src)
}

// typePolicy is resolveMountTypeJournalPolicy.
func typePolicy(e mountEntry) string {
	t := strings.ToLower(e.fsType)
	switch {
	case strings.HasPrefix(t, "nfs"), t == "cifs", t == "smbfs", t == "smb2", t == "smb3":
		return PolicyRollback
	case t == "virtiofs", t == "fuse.virtiofs", strings.HasPrefix(t, "9p"):
		return PolicyRollback
	case t == "fuse.sshfs":
		return PolicyUnsupported
	case (t == "macfuse" || t == "osxfuse") && isSSHFSSource(e.source):
		return PolicyUnsupported
	}
	return PolicyWAL
}

// within is isPathWithinMount: the mount point is the path, the root, or a parent of it.
func within(target, mountPoint string) bool {
	t, m := filepath.Clean(target), filepath.Clean(mountPoint)
	return t == m || m == string(filepath.Separator) || strings.HasPrefix(t, m+string(filepath.Separator))
}

// entryFor is the longest mount point holding target.
func entryFor(target string, entries []mountEntry) (mountEntry, bool) {
	var in []mountEntry
	for _, e := range entries {
		if within(target, e.mountPoint) {
			in = append(in, e)
		}
	}
	if len(in) == 0 {
		return mountEntry{}, false
	}
	sort.SliceStable(in, func(i, j int) bool { return len(in[i].mountPoint) > len(in[j].mountPoint) })
	return in[0], true
}

// policyOf combines the policies of the paths (the worst wins), as
// combineMountEntryJournalPolicies does; fs describes the first path's mount.
func policyOf(paths []string, entries []mountEntry) FS {
	out := FS{Policy: PolicyWAL}
	rank := map[string]int{PolicyWAL: 0, PolicyRollback: 1, PolicyUnsupported: 2}
	for i, p := range paths {
		e, ok := entryFor(p, entries)
		if !ok {
			continue
		}
		if i == 0 {
			out.Type, out.Source = e.fsType, e.source
		}
		if pol := typePolicy(e); rank[pol] > rank[out.Policy] {
			out.Policy, out.Type, out.Source = pol, e.fsType, e.source
		}
	}
	return out
}

// volumePaths is findExistingVolumePaths: the nearest existing directory of target, as given
// and with its symlinks resolved.
func volumePaths(target string) (original, canonical string, ok bool) {
	cur, err := filepath.Abs(target)
	if err != nil {
		return "", "", false
	}
	for {
		st, err := os.Stat(cur)
		if err == nil {
			real, err := filepath.EvalSymlinks(cur)
			if err != nil {
				real = cur
			}
			if st.IsDir() {
				return cur, real, true
			}
			return filepath.Dir(cur), filepath.Dir(real), true
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", "", false
		}
		cur = parent
	}
}

// readMounts reads the mount table: /proc/self/mountinfo, else `mount` (1 s at most, as
// OpenClaw). ok is false when `mount` timed out (OpenClaw then assumes a rollback journal).
func readMounts() (entries []mountEntry, ok bool) {
	if b, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		return parseMountInfo(string(b)), true
	}
	cmd := exec.Command("mount")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
		<-done
		return nil, false
	}
	if err != nil {
		return nil, true // no mount table: OpenClaw's default is WAL
	}
	return parseMountCommand(string(out)), true
}

// FileSystem says which journal policy OpenClaw 2026.9.6 picks for the database at path.
func FileSystem(path string) FS {
	if runtime.GOOS == "windows" {
		return windowsPolicy(path)
	}
	orig, canon, ok := volumePaths(path)
	if !ok {
		return FS{Policy: PolicyWAL}
	}
	if t, ok := statfsType(canon); ok {
		switch t {
		case nfsMagic, smbMagic, cifsMagic, smb2Magic, v9fsMagic:
			entries, _ := readMounts()
			fs := policyOf([]string{orig, canon}, entries)
			fs.Policy = PolicyRollback
			fs.Why = "a network file system (statfs): OpenClaw keeps a rollback journal there, never WAL"
			return fs
		}
	}
	entries, ok := readMounts()
	if !ok {
		return FS{Policy: PolicyRollback, Why: "the mount table could not be read in time: OpenClaw assumes a network file system"}
	}
	fs := policyOf([]string{orig, canon}, entries)
	switch fs.Policy {
	case PolicyRollback:
		fs.Why = "a network or cross-VM file system (" + fs.Type + "): OpenClaw keeps a rollback journal there, never WAL"
	case PolicyUnsupported:
		fs.Why = "SSHFS (" + fs.Type + "): OpenClaw refuses to open a database there (\"cannot safely coordinate SQLite writes across mounts\")"
	}
	return fs
}

var (
	uncPath   = lazyre.New(`(?i)^\\\\\?\\UNC\\[^\\]+\\[^\\]+`)
	uncShare  = lazyre.New(`^\\\\[^\\]+\\[^\\]+`)
	drivePath = lazyre.New(`(?i)^(?:\\\\\?\\)?[A-Za-z]:[\\/]`)
)

// isUNC is isWindowsUncPath: \\?\UNC\server\share, or \\server\share that is not a \\?\ or
// \\.\ device path (JavaScript's lookahead, spelled out).
func isUNC(p string) bool {
	if uncPath.MatchString(p) {
		return true
	}
	return uncShare.MatchString(p) && !strings.HasPrefix(p, `\\?\`) && !strings.HasPrefix(p, `\\.\`)
}

// windowsPolicy is resolvePathJournalPolicy on Windows: a share (UNC path, or a drive that
// resolves to one) gets a rollback journal.
func windowsPolicy(path string) FS {
	p := filepath.Clean(path)
	if isUNC(p) {
		return FS{Type: "share", Policy: PolicyRollback, Why: "a network share: OpenClaw keeps a rollback journal there, never WAL"}
	}
	if drivePath.MatchString(p) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return FS{Policy: PolicyRollback, Why: "the path could not be resolved: OpenClaw assumes a network share"}
		}
		if isUNC(real) {
			return FS{Type: "share", Policy: PolicyRollback, Why: "a drive mapped to a network share: OpenClaw keeps a rollback journal there"}
		}
	}
	return FS{Policy: PolicyWAL}
}
