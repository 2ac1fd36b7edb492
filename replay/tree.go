package replay

import (
	"github.com/clawdoctor/clawdoctor/hygiene"
	"github.com/clawdoctor/clawdoctor/session"
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

// managerPath is the path of OpenClaw r's SessionManager over nodes in file order, as indexes
// into nodes, root first. leafID, when not "", picks the leaf (an explicit --leaf).
func managerPath(nodes []treeNode, leafID string, r hygiene.Release) []int {
	byID := map[string]int{}      // indexed entries, the last of an id wins
	opaque := map[string]string{} // opaque row id -> its parent id
	logical := map[string]int{}   // entry id -> the index of its logical parent, -1 for none
	leaf := -1
	appendParent := "" // the id of the row appended last ("" before any)
	for i, n := range nodes {
		switch {
		case n.indexed():
			if n.noParentKey || (!n.side && appendParent != "" && n.parent == appendParent && (leaf < 0 || nodes[leaf].id != appendParent)) {
				logical[n.id] = leaf // never unset: a later entry of the same id keeps it, as in buildIndex
			}
			byID[n.id] = i
			appendParent = n.id
			if !n.side {
				leaf = i
			}
		case n.id != "" && n.typ != session.TypeSession && n.typ != session.TypeLeaf:
			opaque[n.id] = n.parent
			appendParent = n.id
		}
	}
	if leafID != "" {
		i, ok := byID[leafID]
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
	for cur := nodes[leaf].id; cur != "" && !seen[cur]; {
		seen[cur] = true
		i, ok := byID[cur]
		if !ok {
			cur = opaque[cur]
			continue
		}
		rev = append(rev, i)
		cur = nodes[i].parent
		if p, ok := logical[nodes[i].id]; ok {
			if cur = ""; p >= 0 {
				cur = nodes[p].id
			}
		}
	}
	out := make([]int, len(rev))
	for k, i := range rev {
		out[len(rev)-1-k] = i
	}
	return out
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
