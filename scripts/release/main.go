// Command release builds clawdoctor's release files for every supported platform:
//
//	go run ./scripts/release [-targets darwin/arm64,...] [-allow-dirty] VERSION OUTDIR
//
// It writes OUTDIR/clawdoctor_<VERSION>_<os>_<arch>.tar.gz (.zip for Windows), each holding
// the binary, README.md and a short INSTALL note; OUTDIR/npm/*.tgz, npm packages in the
// pattern esbuild and biome use (a clawdoctor package whose bin starts the binary of one
// package per platform, all optional dependencies, so that npm installs only the one that
// matches and nothing is downloaded at install time); and OUTDIR/SHA256SUMS. The builds are
// reproducible: -trimpath, no VCS or build id stamp, the version, commit and commit date
// stamped through -ldflags (never the build's clock), archives with fixed times, owners and
// order, so two runs on one commit give the same bytes. Nothing is published.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Target is one platform a release is built for, with the names npm gives it.
type Target struct {
	GOOS, GOARCH string
	NodeOS       string // process.platform
	NodeArch     string // process.arch
}

// Targets are the platforms OpenClaw gateways run on: Macs (Apple silicon and Intel), Linux
// servers and Raspberry Pis, Windows.
var Targets = []Target{
	{"darwin", "arm64", "darwin", "arm64"},
	{"darwin", "amd64", "darwin", "x64"},
	{"linux", "amd64", "linux", "x64"},
	{"linux", "arm64", "linux", "arm64"},
	{"windows", "amd64", "win32", "x64"},
}

func (t Target) String() string { return t.GOOS + "/" + t.GOARCH }

// exe is the binary's file name on the target.
func (t Target) exe() string {
	if t.GOOS == "windows" {
		return "clawdoctor.exe"
	}
	return "clawdoctor"
}

// npmName is the target's npm package, e.g. @clawdoctor/linux-x64.
func (t Target) npmName() string { return "@clawdoctor/" + t.NodeOS + "-" + t.NodeArch }

// Options are one release run's choices.
type Options struct {
	Version    string // v0.4.0 or 0.4.0
	Out        string
	Repo       string   // the module's checkout
	Targets    []Target // nil: all
	AllowDirty bool     // build a checkout with uncommitted changes (its commit is stamped "-dirty")
	Log        io.Writer
}

var semver = regexp.MustCompile(`^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$`)

func main() {
	targets := flag.String("targets", "", "comma-separated GOOS/GOARCH subset of "+targetList(Targets))
	dirty := flag.Bool("allow-dirty", false, "build a checkout with uncommitted changes")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/release [-targets LIST] [-allow-dirty] VERSION OUTDIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	opts := Options{Version: flag.Arg(0), Out: flag.Arg(1), Repo: ".", AllowDirty: *dirty, Log: os.Stderr}
	if *targets != "" {
		for _, s := range strings.Split(*targets, ",") {
			t, ok := findTarget(strings.TrimSpace(s))
			if !ok {
				fmt.Fprintf(os.Stderr, "release: unknown target %q (known: %s)\n", s, targetList(Targets))
				os.Exit(2)
			}
			opts.Targets = append(opts.Targets, t)
		}
	}
	if err := Build(context.Background(), opts); err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}

func findTarget(s string) (Target, bool) {
	for _, t := range Targets {
		if t.String() == s {
			return t, true
		}
	}
	return Target{}, false
}

func targetList(ts []Target) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.String())
	}
	return strings.Join(s, ",")
}

// Build writes the release files into o.Out (created; it must not hold files of another run).
func Build(ctx context.Context, o Options) error {
	m := semver.FindStringSubmatch(o.Version)
	if m == nil {
		return fmt.Errorf("version %q is not semver (like v0.4.0)", o.Version)
	}
	npmVersion := m[1]
	version := "v" + npmVersion
	if o.Targets == nil {
		o.Targets = Targets
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	commit, err := git(ctx, o.Repo, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	when, err := git(ctx, o.Repo, "show", "-s", "--format=%ct", "HEAD")
	if err != nil {
		return err
	}
	var epoch int64
	if _, err := fmt.Sscan(when, &epoch); err != nil {
		return fmt.Errorf("commit time %q: %w", when, err)
	}
	stamp := time.Unix(epoch, 0).UTC()
	if status, err := git(ctx, o.Repo, "status", "--porcelain", "--untracked-files=no"); err != nil {
		return err
	} else if status != "" {
		if !o.AllowDirty {
			return errors.New("the checkout has uncommitted changes (commit them, or pass -allow-dirty)")
		}
		commit += "-dirty"
	}
	if entries, err := os.ReadDir(o.Out); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty: a release is written into a new directory", o.Out)
	}
	work, err := os.MkdirTemp("", "clawdoctor-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := os.MkdirAll(filepath.Join(o.Out, "npm"), 0o755); err != nil {
		return err
	}
	readme, err := os.ReadFile(filepath.Join(o.Repo, "README.md"))
	if err != nil {
		return err
	}
	ldflags := strings.Join([]string{"-s", "-w", "-buildid=",
		"-X github.com/clawdoctor/clawdoctor/internal/buildinfo.version=" + version,
		"-X github.com/clawdoctor/clawdoctor/internal/buildinfo.commit=" + commit,
		"-X github.com/clawdoctor/clawdoctor/internal/buildinfo.date=" + stamp.Format(time.RFC3339)}, " ")
	var sums []string
	for _, t := range o.Targets {
		fmt.Fprintf(o.Log, "release: building %s\n", t)
		bin := filepath.Join(work, t.GOOS+"_"+t.GOARCH, t.exe())
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", bin, ".")
		cmd.Dir = o.Repo
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.GOOS, "GOARCH="+t.GOARCH, "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", t, err, out)
		}
		exe, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		base := fmt.Sprintf("clawdoctor_%s_%s_%s", version, t.GOOS, t.GOARCH)
		files := []archived{
			{base + "/" + t.exe(), exe, 0o755},
			{base + "/README.md", readme, 0o644},
			{base + "/INSTALL.txt", []byte(installNote(t, version)), 0o644},
		}
		name := base + ".tar.gz"
		data, err := tarGz(files, stamp)
		if t.GOOS == "windows" {
			name = base + ".zip"
			data, err = zipFiles(files, stamp)
		}
		if err != nil {
			return err
		}
		if err := write(o.Out, name, data, &sums); err != nil {
			return err
		}
		pkg, err := npmPlatformPackage(t, npmVersion, exe)
		if err != nil {
			return err
		}
		if err := write(o.Out, "npm/"+npmFile(t.npmName(), npmVersion), pkg, &sums); err != nil {
			return err
		}
	}
	main, err := npmMainPackage(o.Targets, npmVersion, readme)
	if err != nil {
		return err
	}
	if err := write(o.Out, "npm/"+npmFile("clawdoctor", npmVersion), main, &sums); err != nil {
		return err
	}
	sort.Slice(sums, func(i, j int) bool { return sums[i][66:] < sums[j][66:] }) // by file name
	return os.WriteFile(filepath.Join(o.Out, "SHA256SUMS"), []byte(strings.Join(sums, "")), 0o644)
}

// write writes data to out/name and adds its line to sums ("<sha256>  <name>\n", the format
// of sha256sum -c).
func write(out, name string, data []byte, sums *[]string) error {
	if err := os.WriteFile(filepath.Join(out, filepath.FromSlash(name)), data, 0o644); err != nil {
		return err
	}
	h := sha256.Sum256(data)
	*sums = append(*sums, hex.EncodeToString(h[:])+"  "+name+"\n")
	return nil
}

// npmFile is the name npm pack gives a package's tarball.
func npmFile(pkg, version string) string {
	return strings.ReplaceAll(strings.TrimPrefix(pkg, "@"), "/", "-") + "-" + version + ".tgz"
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

func installNote(t Target, version string) string {
	dest := "/usr/local/bin (or ~/.local/bin)"
	run := "clawdoctor version"
	if t.GOOS == "windows" {
		dest = "a folder on your PATH"
		run = "clawdoctor.exe version"
	}
	note := fmt.Sprintf("clawdoctor %s for %s\n\nCopy %s into %s, then run:\n\n  %s\n  clawdoctor doctor\n\n", version, t, t.exe(), dest, run)
	if t.GOOS == "darwin" {
		note += "macOS quarantines files downloaded by a browser: if it refuses to run the binary,\nrun: xattr -d com.apple.quarantine clawdoctor\n\n"
	}
	return note + "Or, with Node.js (which OpenClaw needs anyway): npm install -g clawdoctor\n"
}
