package audit

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReusedCallIDFacts derives, from the real OpenClaw's answers recorded by
// internal/conformance/oracle/reused_call_id.mjs, which releases and providers lose the later real
// result of a reused tool call id, and checks the rule's table says the same. Re-record with
//
//	for v in 2026.3.13 2026.4.24 2026.6.11 2026.7.35 2026.8.1 2026.9.6; do OPENCLAW_REF_VERSION=$v \
//	  ../shared/tools/openclaw-reference --node internal/conformance/oracle/reused_call_id.mjs; done \
//	  > internal/audit/testdata/oracle/reused_call_id.jsonl
func TestReusedCallIDFacts(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "oracle", "reused_call_id.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type outcome struct {
		Verdict string `json:"verdict"`
		Error   string `json:"error"`
	}
	type policy struct {
		SanitizeToolCallIDs bool   `json:"sanitizeToolCallIds"`
		Error               string `json:"error"`
	}
	loss := map[string][]string{}
	var byOccurrence []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			Version        string            `json:"version"`
			Pairing        outcome           `json:"pairing"`
			AfterIDRewrite outcome           `json:"afterIdRewrite"`
			Policies       map[string]policy `json:"policies"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Pairing.Error != "" || r.AfterIDRewrite.Error != "" {
			t.Fatalf("%s: the oracle did not run cleanly: %s %s", r.Version, r.Pairing.Error, r.AfterIDRewrite.Error)
		}
		switch {
		case r.Pairing.Verdict == "paired by occurrence":
			byOccurrence = append(byOccurrence, r.Version)
		case r.AfterIDRewrite.Verdict != "paired by occurrence":
			loss[r.Version] = []string{"*"}
		default:
			for k, p := range r.Policies {
				if p.Error != "" {
					t.Fatalf("%s %s: %s", r.Version, k, p.Error)
				}
				if !p.SanitizeToolCallIDs {
					loss[r.Version] = append(loss[r.Version], k)
				}
			}
			slices.Sort(loss[r.Version])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(loss, reusedCallIDLoss); diff != "" {
		t.Errorf("reusedCallIDLoss differs from the oracle (-oracle +table):\n%s", diff)
	}
	if diff := cmp.Diff(byOccurrence, reusedCallIDByOccurrence); diff != "" {
		t.Errorf("reusedCallIDByOccurrence differs from the oracle (-oracle +table):\n%s", diff)
	}
}
