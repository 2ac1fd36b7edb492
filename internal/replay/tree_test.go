package replay

import (
	"reflect"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
)

// TestManagerPath pins 2026.6.11's SessionManager tree rules (verified against the oracle on the
// corpus: internal/conformance/replaycheck): opaque rows (unknown type, no id) are walked through but not
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

// TestManagerPathLogicalParents pins buildIndex's logical parents in 2026.6.11 (found by the
// byte-level mutations of internal/conformance/replaycheck: a swapped line before an unknown-type row, a
// flipped byte in "parentId"): an entry without a parentId member, and one whose parentId names
// the opaque row appended just before it, hang under the leaf as it stood when they were read.
func TestManagerPathLogicalParents(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes []treeNode
		want  []int
	}{
		{"no parentId member: under the leaf before it", []treeNode{
			{typ: "session"},
			{typ: "message", id: "a"},
			{typ: "message", id: "b", parent: "a"},
			{typ: "message", id: "c", noParentKey: true},
		}, []int{1, 2, 3}},
		{"parentId null is a root", []treeNode{
			{typ: "session"},
			{typ: "message", id: "a"},
			{typ: "message", id: "b", parent: "a"},
			{typ: "message", id: "c"},
		}, []int{3}},
		{"parent is the opaque row just appended: under the leaf, not through the row", []treeNode{
			{typ: "session"},
			{typ: "message", id: "a"},
			{typ: "message", id: "r", parent: "b"}, // a child written before its parent
			{typ: "message", id: "b", parent: "a"},
			{typ: "mystery", id: "x", parent: "r"}, // opaque, appended after b
			{typ: "message", id: "c", parent: "x"},
		}, []int{1, 3, 5}},
		{"an opaque row further back is walked through", []treeNode{
			{typ: "session"},
			{typ: "message", id: "a"},
			{typ: "mystery", id: "x", parent: "a"},
			{typ: "message", id: "b", parent: "a"},
			{typ: "message", id: "c", parent: "x"},
		}, []int{1, 4}},
		{"parent is the side append just written: under the leaf", []treeNode{
			{typ: "session"},
			{typ: "message", id: "a"},
			{typ: "custom", id: "s", parent: "a", side: true},
			{typ: "message", id: "c", parent: "s"},
		}, []int{1, 3}},
	} {
		if got := managerPath(tc.nodes, "", hygiene.Release20260611); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: path %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestManagerFirstKept pins normalizeEntryParent's rewrite of a compaction's firstKeptEntryId
// that names an opaque row (found by the mutations: a duplicated "type" key made the entry a
// compaction kept from opaque): the indexed entry up the row's parents, else the first
// indexed entry below it on the compaction's branch, else the compaction's parent.
func TestManagerFirstKept(t *testing.T) {
	nodes := []treeNode{
		{typ: "session"},
		{typ: "message", id: "a"},
		{typ: "mystery", id: "x", parent: "a"},    // opaque, under a
		{typ: "compaction", id: "c", parent: "x"}, // firstKept x -> a
		{typ: "mystery", id: "y"},                 // opaque root
		{typ: "message", id: "b", parent: "y"},    // first indexed entry below y
		{typ: "compaction", id: "d", parent: "b"}, // firstKept y -> b
		{typ: "compaction", id: "e", parent: "d"}, // firstKept unknown: unchanged
	}
	tr := newManagerTree(nodes)
	for _, tc := range []struct {
		id   string
		node int
		want string
	}{
		{"x", 3, "a"},
		{"y", 6, "b"},
		{"a", 3, "a"},
		{"nope", 7, "nope"},
	} {
		if got := tr.firstKept(tc.id, tc.node); got != tc.want {
			t.Errorf("firstKept(%q) of node %d = %q, want %q", tc.id, tc.node, got, tc.want)
		}
	}
}
