package replay

import (
	"reflect"
	"testing"

	"github.com/clawdoctor/clawdoctor/hygiene"
)

// TestManagerPath pins 2026.6.11's SessionManager tree rules (verified against the oracle on the
// corpus: conformance/replaycheck): opaque rows (unknown type, no id) are walked through but not
// on the path, the leaf is the last indexed entry that is not a side append, and older releases
// are not asked (usesManagerTree).
func TestManagerPath(t *testing.T) {
	nodes := []treeNode{
		{typ: "session"},
		{typ: "message", id: "a"},
		{typ: "mystery", id: "x", parent: "a"}, // unknown type: opaque
		{typ: "message", id: "b", parent: "x"}, // continues at x's parent
		{typ: "message", parent: "b"},          // no id: neither node nor leaf
		{typ: "message", id: "c", parent: "b"},
		{typ: "custom", id: "s", parent: "c", side: true}, // side append: not the leaf
	}
	for _, tc := range []struct {
		leaf string
		want []int
	}{
		{"", []int{1, 3, 5}},
		{"b", []int{1, 3}},
		{"s", []int{1, 3, 5, 6}},
		{"x", nil}, // an opaque row is no leaf
	} {
		if got := managerPath(nodes, tc.leaf, hygiene.Release20260611); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("leaf %q: path %v, want %v", tc.leaf, got, tc.want)
		}
	}
	if usesManagerTree(hygiene.Release20260424) || !usesManagerTree(hygiene.Release20260611) || !usesManagerTree("") {
		t.Error("usesManagerTree: only 2026.6.11 and the default have the indexed/opaque rules")
	}
}
