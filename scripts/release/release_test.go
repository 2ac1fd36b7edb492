package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// issue 33, scope 3 and 4: two release runs on one commit give the same bytes (SHA256SUMS and
// every file it lists); the archives hold the binary (executable), README.md and INSTALL.txt;
// the host's binary names the commit it was built from; the npm tarballs install offline into
// an empty project, only the host's platform package among them, and `npx clawdoctor` gives
// what the binary gives, for --version and for doctor on a copy of fixtures/demo.
func TestReleaseIsReproducibleAndInstallsWithNpm(t *testing.T) {
	if testing.Short() {
		t.Skip("builds clawdoctor for two platforms twice: skipped with -short")
	}
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	head, err := git(context.Background(), repo, "rev-parse", "HEAD")
	if err != nil {
		t.Skipf("not a git checkout (%v): release builds stamp the commit", err)
	}
	host, ok := findTarget(runtime.GOOS + "/" + runtime.GOARCH)
	targets := []Target{{"windows", "amd64", "win32", "x64"}}
	if ok && host.GOOS != "windows" {
		targets = append([]Target{host}, targets...)
	}
	outs := [2]string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	for _, out := range outs {
		if err := Build(context.Background(), Options{Version: "v0.0.0-test.1", Out: out, Repo: repo, Targets: targets, AllowDirty: true}); err != nil {
			t.Fatal(err)
		}
	}
	sums := [2][]byte{}
	for i, out := range outs {
		sums[i], err = os.ReadFile(filepath.Join(out, "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Fatalf("two runs differ:\n%s\n%s", sums[0], sums[1])
	}
	lines := strings.Split(strings.TrimSpace(string(sums[0])), "\n")
	if want := 2*len(targets) + 1; len(lines) != want {
		t.Fatalf("SHA256SUMS lists %d files, want %d:\n%s", len(lines), want, sums[0])
	}
	for _, l := range lines {
		name := l[66:]
		a, _ := os.ReadFile(filepath.Join(outs[0], name))
		b, _ := os.ReadFile(filepath.Join(outs[1], name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: empty or not the same bytes in both runs", name)
		}
	}
	for _, tg := range targets {
		base := "clawdoctor_v0.0.0-test.1_" + tg.GOOS + "_" + tg.GOARCH
		files := archiveFiles(t, filepath.Join(outs[0], base))
		for _, n := range []string{tg.exe(), "README.md", "INSTALL.txt"} {
			f, ok := files[base+"/"+n]
			if !ok {
				t.Errorf("%s: no %s (has %v)", base, n, keys(files))
			} else if n == tg.exe() && f.mode&0o111 == 0 {
				t.Errorf("%s: %s is not executable (%o)", base, n, f.mode)
			}
		}
	}
	if !ok || host.GOOS == "windows" {
		t.Skipf("no release target for this host (%s/%s): the binary and npm checks need one", runtime.GOOS, runtime.GOARCH)
	}
	// the host's binary, from its archive, names its commit
	base := "clawdoctor_v0.0.0-test.1_" + host.GOOS + "_" + host.GOARCH
	bin := filepath.Join(t.TempDir(), "clawdoctor")
	if err := os.WriteFile(bin, archiveFiles(t, filepath.Join(outs[0], base))[base+"/clawdoctor"].data, 0o755); err != nil {
		t.Fatal(err)
	}
	version := run(t, "", bin, "--version")
	if !strings.Contains(version.out, "clawdoctor v0.0.0-test.1\n") || !strings.Contains(version.out, "commit:   "+head) {
		t.Errorf("the release binary does not name its version and commit %s:\n%s", head, version.out)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		if os.Getenv("CLAWDOCTOR_REQUIRE_NPM") != "" {
			t.Fatal("npm is needed for the npm install check")
		}
		t.Skip("npm not installed: the npm install check is skipped")
	}
	proj := t.TempDir()
	npmDir := filepath.Join(outs[0], "npm")
	overrides := []string{}
	for _, tg := range targets {
		overrides = append(overrides, `"`+tg.npmName()+`": "file:`+filepath.Join(npmDir, npmFile(tg.npmName(), "0.0.0-test.1"))+`"`)
	}
	pj := `{"private": true, "dependencies": {"clawdoctor": "file:` + filepath.Join(npmDir, npmFile("clawdoctor", "0.0.0-test.1")) + `"},
  "overrides": {` + strings.Join(overrides, ", ") + `}}`
	os.WriteFile(filepath.Join(proj, "package.json"), []byte(pj), 0o644)
	if r := run(t, proj, npm, "install", "--offline", "--no-audit", "--no-fund"); r.code != 0 {
		t.Fatalf("npm install --offline: exit %d\n%s", r.code, r.out)
	}
	if ents, _ := os.ReadDir(filepath.Join(proj, "node_modules", "@clawdoctor")); len(ents) != 1 || ents[0].Name() != host.NodeOS+"-"+host.NodeArch {
		t.Errorf("npm installed the platform packages %v, want only %s-%s", ents, host.NodeOS, host.NodeArch)
	}
	npx := filepath.Join(filepath.Dir(npm), "npx")
	if v := run(t, proj, npx, "--offline", "clawdoctor", "--version"); v.code != 0 || v.out != version.out {
		t.Errorf("npx clawdoctor --version: exit %d\n%s\nwant what the binary prints:\n%s", v.code, v.out, version.out)
	}
	state := filepath.Join(t.TempDir(), "demo")
	if err := os.CopyFS(state, os.DirFS(filepath.Join(repo, "fixtures", "demo"))); err != nil {
		t.Fatal(err)
	}
	direct := run(t, "", bin, "--now", "2026-05-05T12:00:00Z", "--no-progress", "doctor", "--state-dir", state)
	viaNpx := run(t, proj, npx, "--offline", "clawdoctor", "--now", "2026-05-05T12:00:00Z", "--no-progress", "doctor", "--state-dir", state)
	if direct.code != viaNpx.code || direct.out != viaNpx.out || direct.code != 1 {
		t.Errorf("npx clawdoctor doctor: exit %d, the binary %d (want 1: the demo has findings); outputs equal: %v\n%s",
			viaNpx.code, direct.code, direct.out == viaNpx.out, viaNpx.out)
	}
}

type result struct {
	out  string
	code int
}

func run(t *testing.T, dir, name string, args ...string) result {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return result{out.String(), code}
}

type file struct {
	data []byte
	mode int64
}

// archiveFiles reads base.tar.gz or base.zip.
func archiveFiles(t *testing.T, base string) map[string]file {
	t.Helper()
	out := map[string]file{}
	if zr, err := zip.OpenReader(base + ".zip"); err == nil {
		defer zr.Close()
		for _, f := range zr.File {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			out[f.Name] = file{b, int64(f.Mode().Perm())}
		}
		return out
	}
	raw, err := os.ReadFile(base + ".tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = file{b, h.Mode}
	}
}

func keys(m map[string]file) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return k
}
