package compaction

// Check compares one stored compaction with what pi's findCutPoint computes for it under each
// next-compaction boundary (spec context-and-forensics §7 step 5), to tell which generation
// (or which settings, or an extension) wrote the file.
type Check struct {
	ID              string   `json:"id"`
	Index           int      `json:"index"` // position on the path
	StoredFirstKept string   `json:"stored_first_kept"`
	FromHook        bool     `json:"from_hook"`
	Pi058           string   `json:"pi_0_58"` // recomputed firstKeptEntryId, pi-0.58 boundary
	Late            string   `json:"late"`    // recomputed, pi-late / OC-core boundary
	Matches         []string `json:"matches"` // the boundaries whose recomputation equals the stored id
}

// Recheck recomputes the cut point of every compaction on the path. Items must carry their
// messages and token estimates from the root on (a fully loaded path).
func Recheck(items []Item, keepRecent int) []Check {
	if keepRecent <= 0 {
		keepRecent = DefaultKeepRecentTokens
	}
	var out []Check
	prev := -1
	for ci, it := range items {
		if it.Kind != KindCompaction {
			continue
		}
		c := Check{ID: it.ID, Index: ci, StoredFirstKept: it.FirstKeptID, FromHook: it.FromHook, Matches: []string{}}
		starts := map[Boundary]int{BoundaryPi058: prev + 1, BoundaryLate: prev + 1}
		if prev >= 0 {
			for k := 0; k < prev; k++ {
				if items[k].ID == items[prev].FirstKeptID {
					starts[BoundaryLate] = k
					break
				}
			}
		}
		for _, b := range []Boundary{BoundaryPi058, BoundaryLate} {
			start := starts[b]
			id := ""
			if start < ci {
				if cut := FindCutPoint(items, start, ci, keepRecent); cut.FirstKeptIndex < ci {
					id = items[cut.FirstKeptIndex].ID
				}
			}
			if b == BoundaryPi058 {
				c.Pi058 = id
			} else {
				c.Late = id
			}
			if id != "" && id == it.FirstKeptID {
				c.Matches = append(c.Matches, string(b))
			}
		}
		out = append(out, c)
		prev = ci
	}
	return out
}
