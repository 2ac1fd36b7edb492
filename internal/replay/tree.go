package replay

import (
	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/session"
)

// OpenClaw 2026.6.11's SessionManager does not put every line of a transcript in its tree: only
// entries of the known types with a non-empty string id are indexed; anything else (an unknown
// type, no id) is kept in the file as an opaque row that the tree walks through (a child's
// parentId naming an opaque row continues at that row's parent) but never puts on a path.
// The leaf is the last indexed entry that is not a side append (appendMode "side"). Its
// buildIndex also gives some entries a logical parent instead of their parentId: an entry
// without a parentId member, and one (not a side append) whose parentId names the row just
// appended when that row is opaque, hang under the leaf as it stood when they were read. Older
// releases (pi's SessionManager) take the last entry of any type as the leaf and every entry
// as a tree node.

var indexedTypes = map[string]bool{
	session.TypeMessage: true, session.TypeThinkingLevelChange: true, session.TypeModelChange: true,
	session.TypeCompaction: true, session.TypeBranchSummary: true, session.TypeCustom: true,
	session.TypeCustomMessage: true, session.TypeLabel: true, session.TypeSessionInfo: true,
}

// treeNode is what the tree rules read of one entry.
type treeNode struct {
	typ, id, parent string // parent "" for null or absent
	side            bool
	noParentKey     bool // no parentId member at all
}

func (n treeNode) indexed() bool { return indexedTypes[n.typ] && n.id != "" }

// managerTree is what 2026.6.11's SessionManager.buildIndex makes of nodes in file order.
type managerTree struct {
	nodes   []treeNode
	byID    map[string]int    // indexed entries, the last of an id wins
	opaque  map[string]string // opaque row id -> its parent id
	logical map[string]int    // entry id -> the index of its logical parent, -1 for none
	leaf    int               // the last indexed entry that is not a side append, -1 for none
}

func newManagerTree(nodes []treeNode) *managerTree {
	t := &managerTree{nodes: nodes, byID: map[string]int{}, opaque: map[string]string{}, logical: map[string]int{}, leaf: -1}
	appendParent := "" // the id of the row appended last ("" before any)
	for i, n := range nodes {
		switch {
		case n.indexed():
			if n.noParentKey || (!n.side && appendParent != "" && n.parent == appendParent && (t.leaf < 0 || nodes[t.leaf].id != appendParent)) {
				t.logical[n.id] = t.leaf // never unset: a later entry of the same id keeps it, as in buildIndex
			}
			t.byID[n.id] = i
			appendParent = n.id
			if !n.side {
				t.leaf = i
			}
		case n.id != "" && n.typ != session.TypeSession && n.typ != session.TypeLeaf:
			t.opaque[n.id] = n.parent
			appendParent = n.id
		}
	}
	return t
}

// managerPath is the path of OpenClaw r's SessionManager over nodes in file order, as indexes
// into nodes, root first. leafID, when not "", picks the leaf (an explicit --leaf).
func managerPath(nodes []treeNode, leafID string, r hygiene.Release) []int {
	return newManagerTree(nodes).path(leafID)
}

func (t *managerTree) path(leafID string) []int {
	leaf := t.leaf
	if leafID != "" {
		i, ok := t.byID[leafID]
		if !ok {
			return nil
		}
		leaf = i
	}
	if leaf < 0 {
		return nil
	}
	var rev []int
	seen := map[string]bool{}
	for cur := t.nodes[leaf].id; cur != "" && !seen[cur]; {
		seen[cur] = true
		i, ok := t.byID[cur]
		if !ok {
			cur = t.opaque[cur]
			continue
		}
		rev = append(rev, i)
		cur = t.parent(i)
	}
	out := make([]int, len(rev))
	for k, i := range rev {
		out[len(rev)-1-k] = i
	}
	return out
}

// parent is the parent id buildIndex gives node i before resolving opaque rows: its logical
// parent, or its parentId.
func (t *managerTree) parent(i int) string {
	if p, ok := t.logical[t.nodes[i].id]; ok {
		if p < 0 {
			return ""
		}
		return t.nodes[p].id
	}
	return t.nodes[i].parent
}

// canonical is resolveCanonicalParentId: id, or the first indexed entry up its opaque parents
// ("" for none).
func (t *managerTree) canonical(id string) string {
	seen := map[string]bool{}
	for id != "" {
		if _, ok := t.byID[id]; ok {
			return id
		}
		if seen[id] {
			return ""
		}
		seen[id] = true
		id = t.opaque[id]
	}
	return ""
}

// firstKept is normalizeEntryParent's rewrite of a compaction's firstKeptEntryId (the
// compaction is node i): an id naming an opaque row becomes the indexed entry up its opaque
// parents, else the first indexed entry below it on the compaction's branch, else the first
// indexed entry below it anywhere in the file, else the compaction's parent.
func (t *managerTree) firstKept(id string, i int) string {
	if _, ok := t.byID[id]; ok {
		return id
	}
	if _, ok := t.opaque[id]; !ok {
		return id
	}
	if c := t.canonical(id); c != "" {
		return c
	}
	parent := t.canonical(t.parent(i))
	if _, ok := t.logical[t.nodes[i].id]; ok {
		parent = t.parent(i)
	}
	// findFirstCanonicalDescendantOnBranch(id, parent), walking raw parentIds
	seen := map[string]bool{}
	first := ""
	for cur := parent; cur != "" && !seen[cur]; {
		if cur == id {
			if first != "" {
				return first
			}
			break
		}
		seen[cur] = true
		if k, ok := t.byID[cur]; ok {
			first, cur = cur, t.nodes[k].parent
		} else {
			cur = t.opaque[cur]
		}
	}
	// findFirstCanonicalDescendant(id)
	for _, n := range t.nodes {
		if !n.indexed() {
			continue
		}
		seen := map[string]bool{}
		for p := n.parent; p != "" && !seen[p]; p = t.opaque[p] {
			if _, ok := t.opaque[p]; !ok {
				break
			}
			if p == id {
				return n.id
			}
			seen[p] = true
		}
	}
	if parent != "" {
		return parent
	}
	return id
}

// normalizeFirstKept rewrites the firstKeptEntryId of the compactions among entries (the
// loaded entries of path, indexes into the tree's nodes) as 2026.6.11's SessionManager does.
// Entries are copied before they change.
func (t *managerTree) normalizeFirstKept(entries []*session.Entry, path []int) {
	for k, e := range entries {
		if e == nil || e.Type != session.TypeCompaction || e.Raw == nil {
			continue
		}
		if id := t.firstKept(e.FirstKeptEntryID, path[k]); id != e.FirstKeptEntryID {
			c := *e
			c.FirstKeptEntryID = id
			entries[k] = &c
		}
	}
}

// usesManagerTree reports whether release r's SessionManager has the indexed/opaque rules.
func usesManagerTree(r hygiene.Release) bool {
	return hygiene.CompareReleases(orDefault(r), hygiene.Release20260611) >= 0
}

func indexNodes(idx *session.Index) []treeNode {
	nodes := make([]treeNode, idx.Len())
	for i := range nodes {
		n := idx.Node(i)
		nodes[i] = treeNode{typ: n.Type, id: n.ID, parent: n.ParentID, side: n.Side, noParentKey: n.NoParentKey}
	}
	return nodes
}

func entryNodes(entries []*session.Entry) []treeNode {
	nodes := make([]treeNode, len(entries))
	for i, e := range entries {
		_, hasParent, _ := session.GetField(e.Raw, "parentId")
		nodes[i] = treeNode{typ: e.Type, id: e.ID, parent: e.Parent(), side: e.AppendMode == "side", noParentKey: e.Raw != nil && !hasParent}
	}
	return nodes
}
