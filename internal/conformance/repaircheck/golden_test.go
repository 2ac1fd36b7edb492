package repaircheck

import (
	"context"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/conformance/harness"
	"github.com/clawdoctor/clawdoctor/internal/openclaw"
)

// TestRecordedOracle compares clawdoctor's repair with the recorded answers of the real
// OpenClaw on the golden inputs of every verified release, without Node. A recording that no
// longer matches the inputs fails: scripts/conformance-record.sh makes it again.
func TestRecordedOracle(t *testing.T) {
	ctx := context.Background()
	ins, err := harness.Collect(ctx, harness.GoldenSets)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) < 400 {
		t.Fatalf("only %d golden inputs", len(ins))
	}
	for _, rel := range openclaw.Verified {
		t.Run(rel.String(), func(t *testing.T) {
			path, err := harness.GoldenPath("repair", rel.String())
			if err != nil {
				t.Fatal(err)
			}
			g, err := harness.LoadGoldens(path)
			if err != nil {
				t.Fatalf("%v (record with scripts/conformance-record.sh)", err)
			}
			rs := harness.Run(ctx, Engine{}, g, rel, ins, 2)
			c := harness.Count(rs)
			for _, r := range rs {
				if r.Verdict.Kind >= harness.Differ {
					t.Errorf("%s: %s (%s) [%s]", r.Input.ID(), r.Verdict.Kind, r.Verdict.Detail, r.Input.Note)
				}
			}
			if n := g.Unused(); n > 0 {
				t.Errorf("%d recorded answers no input asked for: the recording is stale", n)
			}
			t.Logf("repair %s: %d inputs, %d equal, %d deliberate %v", rel, c.Inputs, c.Equal, c.Deliberate, c.ByDeliberate)
			checkRules(t, ctx, g, rel, rs)
		})
	}
}

// checkRules shows the rules that differ between releases on the recorded answers: where the
// real 2026.6.11 replaced corrupt image blocks and inserted results for message tool calls
// before a delivery mirror, clawdoctor made the same bytes; the older releases did neither.
func checkRules(t *testing.T, ctx context.Context, g harness.Caller, rel openclaw.Release, rs []harness.Result) {
	images, mirrors, imageInputs, mirrorInputs := 0, 0, 0, 0
	for _, r := range rs {
		if r.Input.Set != "matrix" {
			continue
		}
		_, ans, err := Oracle(ctx, g, r.Input.Data)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.Contains(r.Input.Name, "/image-bad/"):
			imageInputs++
			if ans.Result.RemovedCorruptedImageBlocks > 0 {
				images++
				if r.Verdict.Kind != harness.Equal {
					t.Errorf("%s: OpenClaw replaced %d image blocks, clawdoctor: %s %s", r.Input.ID(), ans.Result.RemovedCorruptedImageBlocks, r.Verdict.Kind, r.Verdict.Detail)
				}
			}
		case strings.Contains(r.Input.Name, "/delivery-mirror/") && !strings.HasPrefix(r.Input.Name, "openai-code-mode/"):
			mirrorInputs++
			if ans.Result.InsertedToolResults > 0 {
				mirrors++
				if r.Verdict.Kind != harness.Equal {
					t.Errorf("%s: OpenClaw inserted %d results, clawdoctor: %s %s", r.Input.ID(), ans.Result.InsertedToolResults, r.Verdict.Kind, r.Verdict.Detail)
				}
			}
		}
	}
	if imageInputs == 0 || mirrorInputs == 0 {
		t.Fatalf("no image (%d) or delivery-mirror (%d) matrix inputs", imageInputs, mirrorInputs)
	}
	if rel.Has(openclaw.RepairReplacesCorruptImages) != (images > 0) {
		t.Errorf("OpenClaw %s replaced images in %d of %d image-bad inputs", rel, images, imageInputs)
	}
	if rel.Has(openclaw.RepairInsertsDeliveryMirrorResults) != (mirrors > 0) {
		t.Errorf("OpenClaw %s inserted results in %d of %d delivery-mirror inputs", rel, mirrors, mirrorInputs)
	}
	t.Logf("OpenClaw %s: images replaced in %d/%d image-bad inputs, mirror results in %d/%d delivery-mirror inputs", rel, images, imageInputs, mirrors, mirrorInputs)
}
