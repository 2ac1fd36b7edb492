package view

import (
	"slices"

	"github.com/clawdoctor/clawdoctor/internal/session"
)

// layout is the order in which the page lists the entries of session's tree index: a
// depth-first walk where, at every fork, the abandoned branches come first, one level deeper,
// and the branch that leads to the active leaf (or else the newest one) continues at the
// fork's own depth. Span tells, for the first row of a branch, how many rows the branch holds,
// so the page can collapse it without walking the tree.
type layout struct {
	Order []int32 `json:"order"` // entry index per row
	Depth []int16 `json:"depth"` // branch depth per row
	Span  []int32 `json:"span"`  // rows of the branch starting at this row, 0 when none starts here
	// Unreached counts entries no root leads to (parentId cycles); they are listed last.
	Unreached int `json:"unreached"`
}

const maxDepth = 1<<15 - 1

func layoutTree(x *session.Index, active []bool) layout {
	n := x.Len()
	l := layout{Order: make([]int32, 0, n), Depth: make([]int16, 0, n), Span: make([]int32, 0, n)}
	visited := make([]bool, n)
	type item struct {
		node  int32
		depth int16
		exit  bool  // a marker: the branch started at row `row` ends here
		row   int32 // for exit markers
		start bool  // this node starts a branch
	}
	var stack []item
	walk := func(root int, depth int16, start bool) {
		stack = append(stack[:0], item{node: int32(root), depth: depth, start: start})
		for len(stack) > 0 {
			it := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if it.exit {
				l.Span[it.row] = int32(len(l.Order)) - it.row
				continue
			}
			if visited[it.node] {
				continue // a cycle leads back here
			}
			visited[it.node] = true
			row := int32(len(l.Order))
			l.Order = append(l.Order, it.node)
			l.Depth = append(l.Depth, it.depth)
			l.Span = append(l.Span, 0)
			if it.start {
				stack = append(stack, item{exit: true, row: row})
			}
			kids := x.Children(int(it.node))
			if len(kids) == 0 {
				continue
			}
			main := kids[len(kids)-1]
			for _, k := range kids {
				if active[k] {
					main = k
				}
			}
			stack = append(stack, item{node: int32(main), depth: it.depth})
			for i := len(kids) - 1; i >= 0; i-- {
				if kids[i] != main {
					stack = append(stack, item{node: int32(kids[i]), depth: min(it.depth+1, maxDepth), start: true})
				}
			}
		}
	}
	roots := append(x.Roots(), x.Dangling()...)
	slices.Sort(roots)
	for _, r := range roots {
		if active[r] {
			walk(r, 0, false)
		} else {
			walk(r, 1, true) // a tree that does not lead to the active leaf: dead history
		}
	}
	l.Unreached = n - len(l.Order)
	for i := range n {
		if !visited[i] {
			walk(i, 1, true)
		}
	}
	return l
}
