package dbhealth

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// walDB makes a WAL-mode database at p with one table, and returns a writer connection.
func walDB(t *testing.T, p string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+p+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(1000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE t (x BLOB)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// A reader that keeps a read transaction open while 6,000 pages are written: the
// auto-checkpoint cannot pass its mark, the WAL grows past four times OpenClaw's checkpoint
// size, and Inspect names it with the reader's frame.
func TestStarvedCheckpoint(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "agent.sqlite")
	w := walDB(t, p)
	if _, err := w.Exec("INSERT INTO t VALUES (zeroblob(100))"); err != nil {
		t.Fatal(err)
	}
	reader, err := sql.Open("sqlite", "file:"+p)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	tx, err := reader.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6000; i++ {
		if _, err := w.Exec("INSERT INTO t VALUES (zeroblob(3000))"); err != nil {
			t.Fatal(err)
		}
	}
	r := Inspect(dir, p, Options{CoordinatorDir: t.TempDir()})
	if r.WAL.Frames < 4*autoCheckpoint || r.SHM.MaxFrame == 0 || r.Starved == "" || !strings.Contains(r.Starved, "a reader holds frame") {
		t.Fatalf("not starved: %+v %+v %q", r.WAL, r.SHM, r.Starved)
	}
	if !r.CanRun || r.Severity != "warning" || !strings.Contains(r.Verdict, "checkpoint is starved") {
		t.Errorf("verdict %s %q", r.Severity, r.Verdict)
	}
	tx.Rollback()
}

// A -wal whose page size is not the database's, and an index made for another -wal: both are
// named as another database's, and nothing may run.
func TestForeignWAL(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.sqlite"), filepath.Join(dir, "b.sqlite")
	wa, wb := walDB(t, a), walDB(t, b)
	for _, w := range []*sql.DB{wa, wb} {
		if _, err := w.Exec("INSERT INTO t VALUES (zeroblob(5000))"); err != nil {
			t.Fatal(err)
		}
	}
	// b's -wal beside a's -shm (same page size: only the salts differ)
	target := filepath.Join(t.TempDir(), "agent.sqlite")
	copyFile(t, a, target)
	copyFile(t, a+"-shm", target+"-shm")
	copyFile(t, b+"-wal", target+"-wal")
	r := Inspect(dir, target, Options{CoordinatorDir: t.TempDir()})
	if r.Foreign == "" || !strings.Contains(r.Foreign, "another -wal") || r.CanRun || r.Severity != "error" {
		t.Errorf("salt: %q, %v %s", r.Foreign, r.CanRun, r.Severity)
	}
	// a -wal of 8 KiB pages beside a 4 KiB database
	c := filepath.Join(dir, "c.sqlite")
	conn, _ := sql.Open("sqlite", "file:"+c)
	conn.SetMaxOpenConns(1)
	conn.Exec("PRAGMA page_size = 8192")
	conn.Exec("PRAGMA journal_mode = WAL")
	conn.Exec("CREATE TABLE t (x)")
	conn.Exec("INSERT INTO t VALUES (1)")
	copyFile(t, c+"-wal", target+"-wal")
	conn.Close()
	os.Remove(target + "-shm")
	r = Inspect(dir, target, Options{CoordinatorDir: t.TempDir()})
	if !strings.Contains(r.Foreign, "8192 bytes") || r.CanRun {
		t.Errorf("page size: %q", r.Foreign)
	}
	// the real pair: nothing to say
	copyFile(t, a+"-wal", target+"-wal")
	copyFile(t, a+"-shm", target+"-shm")
	if r := Inspect(dir, target, Options{CoordinatorDir: t.TempDir()}); r.Foreign != "" || !r.CanRun {
		t.Errorf("the database's own WAL: %q %v", r.Foreign, r.CanRun)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The argv rules of gateway-process-argv.ts, on the cases its code distinguishes.
func TestGatewayArgv(t *testing.T) {
	for _, tc := range []struct {
		argv    []string
		gateway bool
		openc   bool
	}{
		{[]string{"node", "/usr/lib/node_modules/openclaw/dist/index.js", "gateway", "--port", "18789"}, true, true},
		{[]string{`C:\Program Files\nodejs\node.exe`, `C:\Users\a\AppData\Roaming\npm\node_modules\openclaw\openclaw.mjs`, "Gateway"}, true, true},
		{[]string{"/opt/homebrew/bin/openclaw", "gateway", "run"}, true, true},
		{[]string{"openclaw.cmd", "gateway"}, true, true},
		{[]string{"/usr/local/bin/openclaw-gateway"}, true, false},
		{[]string{"/usr/bin/openclaw", "doctor"}, false, true},
		{[]string{"node", "server.js", "gateway"}, false, false},
	} {
		if got := isGatewayArgv(tc.argv, true); got != tc.gateway {
			t.Errorf("isGatewayArgv(%q) = %v", tc.argv, got)
		}
		if got := isOpenClawArgv(tc.argv); got != tc.openc {
			t.Errorf("isOpenClawArgv(%q) = %v", tc.argv, got)
		}
	}
}

// A coordinator OpenClaw holds (BEGIN EXCLUSIVE on <family>.<hash>.lock.sqlite, in another
// process) is named with the holder's pid; left behind, it says nothing.
func TestCoordinatorHeld(t *testing.T) {
	if os.Getenv("DBHEALTH_HOLD") != "" {
		return // the helper below
	}
	if runtime.GOOS == "windows" {
		t.Skip("no lock owner query on Windows")
	}
	state := t.TempDir()
	os.MkdirAll(filepath.Join(state, "state"), 0o700)
	os.WriteFile(filepath.Join(state, "state", "openclaw.sqlite"), nil, 0o600)
	cdir := t.TempDir()
	lock := filepath.Join(cdir, "gateway-lifecycle."+hash8(filepath.Join(state, "state", "openclaw.sqlite"))+".lock.sqlite")
	r := Inspect(state, filepath.Join(state, "agent.sqlite"), Options{CoordinatorDir: cdir})
	if len(r.Coordinators) != 0 || !r.CanRun {
		t.Fatalf("no coordinator yet: %+v", r.Coordinators)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldCoordinator$")
	cmd.Env = append(os.Environ(), "DBHEALTH_HOLD="+lock)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.HasPrefix(line, "held") {
		t.Fatalf("helper: %q %v", line, err)
	}
	r = Inspect(state, filepath.Join(state, "agent.sqlite"), Options{CoordinatorDir: cdir})
	if len(r.Coordinators) != 1 || r.Coordinators[0].HeldBy != cmd.Process.Pid || !r.Coordinators[0].Ours || r.CanRun {
		t.Fatalf("held by %d: %+v %q", cmd.Process.Pid, r.Coordinators, r.Verdict)
	}
	if !strings.Contains(r.Verdict, fmt.Sprintf("pid %d holds the gateway-lifecycle coordinator", cmd.Process.Pid)) {
		t.Errorf("verdict %q", r.Verdict)
	}
}

// TestHoldCoordinator is the helper process of TestCoordinatorHeld: it takes the coordinator
// as OpenClaw does and holds it until its stdin closes.
func TestHoldCoordinator(t *testing.T) {
	p := os.Getenv("DBHEALTH_HOLD")
	if p == "" {
		t.Skip("helper process")
	}
	db, err := sql.Open("sqlite", "file:"+p)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA journal_mode = MEMORY; BEGIN EXCLUSIVE;"); err != nil {
		t.Fatal(err)
	}
	fmt.Println("held")
	bufio.NewReader(os.Stdin).ReadString('\n')
}

// The mount-table rules of sqlite-wal.ts: which file systems get a rollback journal, which
// are refused, on the entries its parsers read.
func TestFileSystemPolicy(t *testing.T) {
	info := `22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw
35 22 0:31 / /mnt/nas rw shared:2 - nfs4 nas:/export rw,vers=4.2
36 22 0:32 / /mnt/smb rw shared:3 - cifs //srv/share rw
37 22 0:33 / /mnt/remote rw shared:4 - fuse.sshfs user@host:/home rw
38 22 0:34 / /mnt/vm rw shared:5 - virtiofs shared rw
39 22 0:35 / /mnt/with\040space rw shared:6 - 9p host0 rw
`
	entries := parseMountInfo(info)
	if len(entries) != 6 || entries[5].mountPoint != "/mnt/with space" || entries[1].source != "nas:/export" {
		t.Fatalf("mountinfo: %+v", entries)
	}
	for _, tc := range []struct{ path, policy string }{
		{"/home/u/.openclaw/agents/main/agent/openclaw-agent.sqlite", PolicyWAL},
		{"/mnt/nas/.openclaw/agents/main/agent", PolicyRollback},
		{"/mnt/smb/x", PolicyRollback},
		{"/mnt/remote/x", PolicyUnsupported},
		{"/mnt/vm/x", PolicyRollback},
		{"/mnt/with space/x", PolicyRollback},
		{"/mnt/nasty/x", PolicyWAL}, // a prefix of the name is not a parent
	} {
		if got := policyOf([]string{tc.path}, entries); got.Policy != tc.policy {
			t.Errorf("%s: %s (%+v), want %s", tc.path, got.Policy, got, tc.policy)
		}
	}
	mac := `/dev/disk3s1s1 on / (apfs, sealed, local, read-only, journaled)
//u@nas/share on /Volumes/share (smbfs, nodev, nosuid, mounted by u)
u@host:/home on /Volumes/remote (macfuse, nodev, nosuid, synchronous, mounted by u)
map auto_home on /System/Volumes/Data/home (autofs, automounted, nobrowse)`
	me := parseMountCommand(mac)
	for _, tc := range []struct{ path, policy string }{
		{"/Users/u/.openclaw", PolicyWAL},
		{"/Volumes/share/.openclaw", PolicyRollback},
		{"/Volumes/remote/.openclaw", PolicyUnsupported},
	} {
		if got := policyOf([]string{tc.path}, me); got.Policy != tc.policy {
			t.Errorf("mac %s: %s, want %s", tc.path, got.Policy, tc.policy)
		}
	}
	linuxMount := "nas:/export on /mnt/nas type nfs4 (rw,relatime)\n"
	if got := policyOf([]string{"/mnt/nas/x"}, parseMountCommand(linuxMount)); got.Policy != PolicyRollback {
		t.Errorf("mount(8) on Linux: %+v", got)
	}
	for _, tc := range []struct {
		p   string
		unc bool
	}{
		{`\\nas\share\.openclaw`, true},
		{`\\?\UNC\nas\share\x`, true},
		{`\\?\C:\Users\u`, false},
		{`\\.\pipe\x`, false},
		{`\\.host\share`, true},
		{`C:\Users\u\.openclaw`, false},
	} {
		if got := isUNC(tc.p); got != tc.unc {
			t.Errorf("isUNC(%s) = %v", tc.p, got)
		}
	}
	// this machine: whatever it is, a policy and no error
	if fs := FileSystem(t.TempDir()); fs.Policy == "" {
		t.Error("no policy for a local dir")
	}
}
