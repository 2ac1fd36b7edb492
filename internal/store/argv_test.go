package store

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// issue 33, scope 2: a lock holder's command line is read and judged as the real OpenClaw
// reads and judges it on each platform. testdata/oracle/owner_argv.jsonl holds the answers of
// isOpenClawSessionOwnerArgv, parseCmdScriptCommandLine (Windows) and the ps split (macOS) of
// 2026.6.11 and 2026.7.35 (the newest JSONL-era release) on ~470 command lines (recorded live by
// internal/conformance's TestLiveOwnerArgv, which .ci/run runs).
func TestOwnerArgvOracle(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "oracle", "owner_argv.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := map[string]int{}
	for sc.Scan() {
		var r struct {
			Release, Kind string
			In, Out       json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		n[r.Kind]++
		switch r.Kind {
		case "owner":
			var in []string
			var want bool
			json.Unmarshal(r.In, &in)
			json.Unmarshal(r.Out, &want)
			if got := OwnerArgvRule(r.Release)(in); got != want {
				t.Errorf("%s: the owner rule says %v of %q, OpenClaw says %v", r.Release, got, in, want)
			}
		case "windows", "ps":
			var in string
			var want []string
			json.Unmarshal(r.In, &in)
			json.Unmarshal(r.Out, &want)
			got := ParseWindowsCommandLine(in)
			if r.Kind == "ps" {
				got = SplitPSCommand(in)
			}
			if len(got) == 0 && len(want) == 0 {
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s split of %q = %q, OpenClaw gives %q", r.Release, r.Kind, in, got, want)
			}
		default:
			t.Fatalf("unknown kind %q", r.Kind)
		}
	}
	if n["owner"] < 200 || n["windows"] < 100 || n["ps"] < 30 {
		t.Fatalf("the golden holds too few cases: %v", n)
	}
}

// The holders clawdoctor starts are taken for OpenClaw by OpenClaw's own reading of them on
// every platform: Linux's argv, macOS's ps output, Windows' CommandLine.
func TestHoldersLookLikeOpenClaw(t *testing.T) {
	for _, v := range []string{"2026.6.11", "2026.7.35"} {
		rule := OwnerArgvRule(v)
		if !rule(unixHolderArgs) || !rule(SplitPSCommand(strings.Join(unixHolderArgs, " "))) || !rule(ParseWindowsCommandLine(windowsHolderCmdLine)) {
			t.Errorf("%s does not take a holder for OpenClaw", v)
		}
	}
	if !LooksLikeOpenClaw(unixHolderArgs) {
		t.Errorf("Linux: %q is not taken for OpenClaw", unixHolderArgs)
	}
	if ps := SplitPSCommand(strings.Join(unixHolderArgs, " ") + "\n"); !LooksLikeOpenClaw(ps) {
		t.Errorf("macOS (ps -o command=): %q is not taken for OpenClaw", ps)
	}
	if w := ParseWindowsCommandLine(windowsHolderCmdLine); !LooksLikeOpenClaw(w) || w[len(w)-2] != "clawdoctor-lock-holder" {
		t.Errorf("Windows: %q is not taken for OpenClaw", w)
	}
}
