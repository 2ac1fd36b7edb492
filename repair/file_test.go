package repair

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

const damaged = hdr + "\n" + u1 + "\n" + `{"type":"message"` + "\n" + a1 + "\n"

func sessionsDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func write(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRepairFileWritesBackupAndKeepsModeAndMtime(t *testing.T) {
	dir := sessionsDir(t)
	p := filepath.Join(dir, "s1.jsonl")
	write(t, p, damaged, 0o600)
	mtime := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	opts := testOpts()
	opts.PID = 4242
	res := RepairFile(context.Background(), dir, p, opts, nil)
	if res.Status != StatusRepaired || res.DroppedLines != 1 {
		t.Fatalf("result %+v", res)
	}
	wantBackup := p + fmt.Sprintf(".bak-4242-%d", testNow.UnixMilli())
	if res.BackupPath != wantBackup {
		t.Errorf("backup %s, want %s", res.BackupPath, wantBackup)
	}
	if got := read(t, wantBackup); got != damaged {
		t.Errorf("backup does not hold the original: %q", got)
	}
	if got := read(t, p); got != lines(hdr, u1, a1) {
		t.Errorf("repaired file %q", got)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 || !st.ModTime().Equal(mtime) {
		t.Errorf("mode %v mtime %v, want 0600 and %v", st.Mode().Perm(), st.ModTime(), mtime)
	}
	if res.BytesBefore != int64(len(damaged)) || res.BytesAfter != int64(len(lines(hdr, u1, a1))) {
		t.Errorf("bytes %d -> %d", res.BytesBefore, res.BytesAfter)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("dir holds %d files, want the transcript and its backup (no temp left)", len(ents))
	}
}

func TestRepairFileDryRunWritesNothing(t *testing.T) {
	dir := sessionsDir(t)
	p := filepath.Join(dir, "s1.jsonl")
	write(t, p, damaged, 0o644)
	opts := testOpts()
	opts.DryRun = true
	res := RepairFile(context.Background(), dir, p, opts, nil)
	if res.Status != StatusRepaired || res.DroppedLines != 1 {
		t.Fatalf("result %+v", res)
	}
	if read(t, p) != damaged {
		t.Error("dry run changed the file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("dry run left %d files", len(ents))
	}
}

func TestRepairFileBackupDir(t *testing.T) {
	dir := sessionsDir(t)
	p := filepath.Join(dir, "s1.jsonl")
	write(t, p, damaged, 0o644)
	opts := testOpts()
	opts.BackupDir = filepath.Join(t.TempDir(), "backups")
	res := RepairFile(context.Background(), dir, p, opts, nil)
	if res.Status != StatusRepaired || filepath.Dir(res.BackupPath) != opts.BackupDir {
		t.Fatalf("result %+v", res)
	}
	if read(t, res.BackupPath) != damaged {
		t.Error("backup differs from the original")
	}
}

func TestRepairFileCompressedArchives(t *testing.T) {
	for _, c := range []jsonl.Compression{jsonl.Gzip, jsonl.Zstd} {
		t.Run(c.String(), func(t *testing.T) {
			dir := sessionsDir(t)
			p := filepath.Join(dir, "s1.jsonl.reset.2026-03-14T09-05-33.123Z.zst")
			var b bytes.Buffer
			w, err := jsonl.NewWriter(&b, c)
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(damaged))
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			write(t, p, b.String(), 0o644)
			res := RepairFile(context.Background(), dir, p, testOpts(), nil)
			if res.Status != StatusRepaired || res.Compression != c.String() {
				t.Fatalf("result %+v", res)
			}
			f, err := jsonl.Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Compression != c {
				t.Errorf("rewritten as %v, want %v", f.Compression, c)
			}
			got, _ := io.ReadAll(f)
			if string(got) != lines(hdr, u1, a1) {
				t.Errorf("content %q", got)
			}
		})
	}
}

func TestRepairFileRefusals(t *testing.T) {
	ctx := context.Background()
	t.Run("live lock", func(t *testing.T) {
		dir := sessionsDir(t)
		p := filepath.Join(dir, "s1.jsonl")
		write(t, p, damaged, 0o644)
		lock, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "createdAt": time.Now().UTC().Format(time.RFC3339Nano)})
		write(t, p+".lock", string(lock), 0o644)
		opts := testOpts()
		opts.Now = time.Now()
		res := RepairFile(ctx, dir, p, opts, nil)
		if res.Status != StatusSkipped || !strings.Contains(res.Reason, "live process") || read(t, p) != damaged {
			t.Fatalf("result %+v", res)
		}
		opts.Force = true
		if res := RepairFile(ctx, dir, p, opts, nil); res.Status != StatusRepaired {
			t.Fatalf("--force: %+v", res)
		}
	})
	t.Run("stale lock", func(t *testing.T) {
		dir := sessionsDir(t)
		p := filepath.Join(dir, "s1.jsonl")
		write(t, p, damaged, 0o644)
		write(t, p+".lock", `{"pid":999999999,"createdAt":"2026-01-01T00:00:00.000Z"}`, 0o644)
		if res := RepairFile(ctx, dir, p, testOpts(), nil); res.Status != StatusRepaired {
			t.Fatalf("stale lock should not block: %+v", res)
		}
	})
	t.Run("symlink out of the sessions dir", func(t *testing.T) {
		dir := sessionsDir(t)
		outside := filepath.Join(t.TempDir(), "victim.jsonl")
		write(t, outside, damaged, 0o644)
		p := filepath.Join(dir, "s1.jsonl")
		if err := os.Symlink(outside, p); err != nil {
			t.Skip(err)
		}
		res := RepairFile(ctx, dir, p, testOpts(), nil)
		if res.Status != StatusSkipped || !strings.Contains(res.Reason, "symlink") || read(t, outside) != damaged {
			t.Fatalf("result %+v", res)
		}
	})
	t.Run("path outside root", func(t *testing.T) {
		dir := sessionsDir(t)
		outside := filepath.Join(t.TempDir(), "s1.jsonl")
		write(t, outside, damaged, 0o644)
		res := RepairFile(ctx, dir, outside, testOpts(), nil)
		if res.Status != StatusSkipped || read(t, outside) != damaged {
			t.Fatalf("result %+v", res)
		}
	})
	t.Run("sqlite era", func(t *testing.T) {
		dir := sessionsDir(t)
		p := filepath.Join(dir, "s1.jsonl")
		write(t, p, damaged, 0o644)
		if err := fixtures.WriteAgentDB(fixtures.SQLite96, filepath.Join(filepath.Dir(dir), "agent")); err != nil {
			t.Fatal(err)
		}
		res := RepairFile(ctx, dir, p, testOpts(), nil)
		if res.Status != StatusSkipped || !strings.Contains(res.Reason, "SQLite") || read(t, p) != damaged {
			t.Fatalf("result %+v", res)
		}
		if r := RepairStore(ctx, dir, "main", testOpts()); r.Status != StatusSkipped {
			t.Fatalf("store: %+v", r)
		}
	})
	t.Run("headerless file with a torn line", func(t *testing.T) {
		dir := sessionsDir(t)
		p := filepath.Join(dir, "s1.jsonl")
		in := lines(u1, "garbage", a1) + `{"type":"mess`
		write(t, p, in, 0o644)
		res := RepairFile(ctx, dir, p, testOpts(), nil)
		if res.Status != StatusSkipped || read(t, p) != in {
			t.Fatalf("result %+v", res)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("skipped file left %d files (temp or backup)", len(ents))
		}
	})
	// issue 10, scope 1: a line a live writer appends during the repair is carried into the
	// new file; a file rewritten or replaced meanwhile is left untouched.
	t.Run("appended between plan and apply", func(t *testing.T) {
		want, _ := repairBytes(t, []byte(damaged), Options{})
		for _, phase := range []string{"planned", "backup"} {
			dir := sessionsDir(t)
			p := filepath.Join(dir, "s1.jsonl")
			write(t, p, damaged, 0o644)
			opts := testOpts()
			opts.Phase = func(ph string) {
				if ph == phase {
					f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
					f.WriteString(u2 + "\n")
					f.Close()
				}
			}
			res := RepairFile(ctx, dir, p, opts, nil)
			if res.Status != StatusRepaired || read(t, p) != string(want)+u2+"\n" {
				t.Fatalf("append after %s: result %+v\n%q", phase, res, read(t, p))
			}
			if !strings.Contains(fmt.Sprint(res.Notes), "carried over") {
				t.Errorf("append after %s: no note says the tail was carried: %+v", phase, res.Notes)
			}
		}
	})
	t.Run("rewritten in place between plan and apply", func(t *testing.T) {
		dir := sessionsDir(t)
		p := filepath.Join(dir, "s1.jsonl")
		write(t, p, damaged, 0o644)
		other := strings.Replace(damaged, "hello", "HELLO", 1)
		opts := testOpts()
		opts.Phase = func(ph string) {
			if ph == "planned" {
				os.WriteFile(p, []byte(other), 0o644)
				os.Chtimes(p, time.Now(), time.Now().Add(time.Hour))
			}
		}
		res := RepairFile(ctx, dir, p, opts, nil)
		if res.Status != StatusFailed || read(t, p) != other {
			t.Fatalf("result %+v", res)
		}
	})
	t.Run("replaced by another file between plan and apply", func(t *testing.T) {
		dir := sessionsDir(t)
		p := filepath.Join(dir, "s1.jsonl")
		write(t, p, damaged, 0o644)
		opts := testOpts()
		opts.Phase = func(ph string) {
			if ph == "planned" {
				os.WriteFile(p+".new", []byte(damaged+u2+"\n"), 0o644)
				os.Rename(p+".new", p)
			}
		}
		res := RepairFile(ctx, dir, p, opts, nil)
		if res.Status != StatusFailed || read(t, p) != damaged+u2+"\n" {
			t.Fatalf("result %+v", res)
		}
	})
}

func TestRunOverStateDir(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "agents", "main", "sessions")
	os.MkdirAll(dir, 0o755)
	write(t, filepath.Join(dir, "a.jsonl"), damaged, 0o644)
	write(t, filepath.Join(dir, "b.jsonl"), lines(hdr, u1), 0o644)
	write(t, filepath.Join(dir, "c.jsonl"), lines(u1), 0o644)
	write(t, filepath.Join(dir, "b.trajectory.jsonl"), "garbage\n", 0o644)
	write(t, filepath.Join(dir, ".a.jsonl.clawdoctor-123.tmp"), "garbage\n", 0o644)
	write(t, filepath.Join(dir, "sessions.json"), `{"k":{"sessionId":"a","updatedAt":1}}`, 0o644)
	res, err := Run(context.Background(), Target{StateDir: state}, testOpts(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range res.Files {
		got[filepath.Base(f.Path)] = f.Status
	}
	want := map[string]string{"sessions.json": StatusClean, "a.jsonl": StatusRepaired, "b.jsonl": StatusClean, "c.jsonl": StatusSkipped}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	s := res.Summary
	if s.Files != 4 || s.Repaired != 1 || s.Clean != 2 || s.Skipped != 1 || s.DroppedLines != 1 {
		t.Errorf("summary %+v", s)
	}
}

// TestApplyFileMatchesApply checks that the file path (seek + kernel copy) writes exactly what
// the streaming path writes.
func TestApplyFileMatchesApply(t *testing.T) {
	big, _ := crashInput(3<<20, 9)
	for i, in := range []string{damaged, string(big), "\xef\xbb\xbf" + lines(hdr, u1+a1, "garbage", strings.Repeat("\x00", 9)+userWith(`""`), errA) + `{"type`} {
		want, p := repairBytes(t, []byte(in), testOpts())
		if !p.Changed() {
			t.Fatalf("input %d needs no repair", i)
		}
		path := filepath.Join(t.TempDir(), "in.jsonl")
		write(t, path, in, 0o644)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(t.TempDir(), "out.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		n, err := ApplyFile(context.Background(), p, f, out)
		f.Close()
		out.Close()
		if err != nil || n != p.BytesAfter {
			t.Fatalf("input %d: ApplyFile wrote %d (plan %d): %v", i, n, p.BytesAfter, err)
		}
		if got := read(t, out.Name()); got != string(want) {
			t.Errorf("input %d: ApplyFile output differs from Apply", i)
		}
	}
}

// TestBackupAcrossDevices puts --backup-dir on another file system (/dev/shm): the backup is
// then an atomic copy with the original's mode.
func TestBackupAcrossDevices(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "repair-backup-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	defer os.RemoveAll(shm)
	dir := sessionsDir(t)
	p := filepath.Join(dir, "s1.jsonl")
	write(t, p, damaged, 0o600)
	if linkable(t, p, shm) {
		t.Skip("/dev/shm is on the same device here")
	}
	opts := testOpts()
	opts.BackupDir = filepath.Join(shm, "b")
	res := RepairFile(context.Background(), dir, p, opts, nil)
	if res.Status != StatusRepaired || filepath.Dir(res.BackupPath) != opts.BackupDir {
		t.Fatalf("result %+v", res)
	}
	if read(t, res.BackupPath) != damaged {
		t.Error("backup differs from the original")
	}
	if bst, _ := os.Stat(res.BackupPath); bst.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v, want 0600", bst.Mode().Perm())
	}
	ents, _ := os.ReadDir(opts.BackupDir)
	if len(ents) != 1 {
		t.Errorf("backup dir holds %d files, want 1 (no temp left)", len(ents))
	}
	// A second backup of the same name is refused, never overwritten.
	if _, err := takeBackup(p, res.BackupPath, false); err == nil {
		t.Error("existing backup overwritten")
	}
}

// TestCancelled checks that an interrupted run (Ctrl-C cancels the context) leaves the file as
// it was and no temp file behind.
func TestCancelled(t *testing.T) {
	dir := sessionsDir(t)
	p := filepath.Join(dir, "s1.jsonl")
	big, _ := crashInput(2<<20, 5)
	write(t, p, string(big), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	opts := testOpts()
	opts.Phase = func(ph string) {
		if ph == "planned" {
			cancel()
		}
	}
	res := RepairFile(ctx, dir, p, opts, nil)
	if res.Status != StatusFailed || !strings.Contains(res.Reason, "canceled") {
		t.Fatalf("result %+v", res)
	}
	if read(t, p) != string(big) {
		t.Error("cancelled repair changed the file")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file %s left behind", e.Name())
		}
	}
	if _, err := Run(ctx, Target{Paths: []string{dir}}, testOpts(), nil); err == nil {
		t.Error("Run with a cancelled context returned no error")
	}
}
