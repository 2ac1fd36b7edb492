package replaycheck

import (
	"reflect"
	"testing"
)

// Entry ids the input does not hold (pi's migration of a header without a version gives
// every entry a new random id) are compared by order of appearance; the input's own ids as
// they are, so a wrong kept entry still differs.
func TestNormalizeGeneratedIDs(t *testing.T) {
	known := inputIDs([]byte(`{"type":"session","id":"s"}` + "\n" + `{"type":"message","id":"a"}` + "\n"))
	mk := func(first string, kept ...string) *CompactionAnswer {
		return &CompactionAnswer{Prepared: &Prepared{FirstKeptEntryID: first, Kept: kept, Summarized: []string{}, TurnPrefix: []string{}}}
	}
	oracle, ours := mk("r1", "r1", "r2", "a"), mk("d1", "d1", "d2", "a")
	oracle.NormalizeGeneratedIDs(known)
	ours.NormalizeGeneratedIDs(known)
	if !reflect.DeepEqual(oracle, ours) {
		t.Errorf("generated ids not matched by order: %+v vs %+v", oracle.Prepared, ours.Prepared)
	}
	wrong := mk("d1", "d1", "a", "d2")
	wrong.NormalizeGeneratedIDs(known)
	if reflect.DeepEqual(oracle, wrong) {
		t.Error("a different order of kept entries compares equal")
	}
}
