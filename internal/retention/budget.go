package retention

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// projectedStoreBytes is the byte length of JSON.stringify(store, null, 2) for the live
// store: 2 for "{}" plus, per entry, its chunk and 2 bytes of ",\n" (disk-budget.ts).
func (s *state) projectedStoreBytes() int64 {
	n := int64(2)
	for _, e := range s.entries {
		if e != nil {
			n += e.ChunkBytes + 2
		}
	}
	return n
}

// removeForBudget simulates removeFileForBudget: each path once, sized from the listing.
func (s *state) removeForBudget(path, step, reason string) int64 {
	size, ok := s.sizeOf(path)
	if !ok {
		return 0
	}
	return s.removeFileForBudget(path, size, step, reason)
}

// removeFileForBudget is removeForBudget of a listed file of that size (the listing's, as
// sizeOf gives it), without looking the size up again. A removed file is in s.fileSet: a later
// step (the sweep) that meets it again removes nothing.
func (s *state) removeFileForBudget(path string, size int64, step, reason string) int64 {
	if size <= 0 || s.fileSet[path] {
		return 0
	}
	s.addFile(FileAction{Path: path, Action: FileDelete, Bytes: size, Step: step, Reason: reason})
	return size
}

// sortByModMs returns files in the order a stable sort by ModMs (less) puts them,
// sorting their positions instead: a stable sort moved the 48-byte files about (a tenth of a
// budget plan's serial time on 200,000 files); ties keep the files' order.
func sortByModMs(files []File) []File {
	pos := make([]int32, len(files))
	for i := range pos {
		pos[i] = int32(i)
	}
	slices.SortFunc(pos, func(a, b int32) int {
		if c := less(files[a].ModMs, files[b].ModMs); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out := make([]File, len(files))
	for i, p := range pos {
		out[i] = files[p]
	}
	return out
}

func (s *state) promptRefCounts() map[string]int {
	counts := map[string]int{}
	for _, e := range s.entries {
		if e != nil && e.PromptHash != "" {
			counts[e.PromptHash]++
		}
	}
	return counts
}

func blobHash(f File) string {
	b := f.base()
	if IsBlobName(b) {
		return strings.TrimSuffix(b, ".txt")
	}
	return ""
}

func blobRemovable(f File, refs map[string]int, blobCut, tempCut float64) bool {
	if IsBlobTemp(f.base()) {
		return f.ModMs <= tempCut
	}
	if f.ModMs > blobCut {
		return false
	}
	h := blobHash(f)
	return h != "" && refs[h] == 0
}

// budget is enforceSessionDiskBudget in simulation: tier 1 unreferenced prompt blobs,
// tier 2 archives and unreferenced artifacts oldest first, tier 3 oldest unprotected entries,
// each until the total is at or below highWaterBytes.
func (s *state) budget(files []File, warnOnly bool) *Budget {
	st := s.opt.Settings
	if st.MaxDiskBytes == nil || st.HighWaterBytes == nil {
		return nil
	}
	maxB, hw := *st.MaxDiskBytes, *st.HighWaterBytes
	var total, storeSize int64
	for _, f := range files {
		total += f.Size
		if f.Name == s.in.StoreName {
			storeSize = f.Size
		}
	}
	for _, f := range s.in.Blobs {
		total += f.Size
	}
	existingBlobs := map[string]File{}
	for _, f := range s.in.Blobs {
		if h := blobHash(f); h != "" {
			existingBlobs[h] = f
		}
	}
	virtual := map[string]int64{}
	for _, e := range s.entries {
		if e != nil && e.PromptHash != "" && e.PromptBytes > 0 {
			if _, ok := existingBlobs[e.PromptHash]; !ok {
				virtual[e.PromptHash] = e.PromptBytes
			}
		}
	}
	var virtualBytes int64
	for _, b := range virtual {
		virtualBytes += b
	}
	projected := s.projectedStoreBytes()
	total = total - storeSize + projected + virtualBytes
	b := &Budget{TotalBytesBefore: total, TotalBytesAfter: total, MaxBytes: maxB, HighWaterBytes: hw}
	if total <= maxB {
		return b
	}
	b.OverBudget = true
	if warnOnly {
		return b
	}
	overText := fmt.Sprintf("sessions dir %d bytes > maxDiskBytes %d; down to highWaterBytes %d", b.TotalBytesBefore, maxB, hw)
	// Reasons are shared strings: a budget run may decide hundreds of thousands of files.
	tier1 := "disk budget tier 1: unreferenced skills prompt blob; " + overText
	tier2 := map[string]string{}
	for _, kind := range []string{"archive", "stale store temp", "unreferenced session artifact"} {
		tier2[kind] = "disk budget tier 2: " + kind + ", oldest first; " + overText
	}
	tier3 := "disk budget tier 3: oldest unprotected entry; " + overText
	refs := s.referenced()
	refCounts := s.promptRefCounts()
	tempCut := s.nowMs - StoreTempStaleMs
	blobCut := s.nowMs - StoreTempStaleMs
	// tier 1
	blobs := make([]File, 0)
	for _, f := range s.in.Blobs {
		if blobRemovable(f, refCounts, blobCut, tempCut) {
			blobs = append(blobs, f)
		}
	}
	for _, f := range sortByModMs(blobs) {
		if total <= hw {
			break
		}
		if n := s.removeFileForBudget(f.Name, f.Size, "budget", tier1); n > 0 {
			total -= n
			b.FreedBytes += n
			b.RemovedFiles++
		}
	}
	// tier 2
	queue := make([]File, 0, len(files)) // at most every file: growing it allocated 3x its size
	for _, f := range files {
		if s.budgetRemovable(f, refs, tempCut) {
			queue = append(queue, f)
		}
	}
	for _, f := range sortByModMs(queue) {
		if total <= hw {
			break
		}
		kind := "archive"
		switch c := s.fileClass(f); {
		case c&classStoreTemp != 0:
			kind = "stale store temp"
		case c&classArchive == 0:
			kind = "unreferenced session artifact"
		}
		step := "budget"
		if kind == "unreferenced session artifact" {
			step = stepBudgetOrphan
		}
		if n := s.removeFileForBudget(f.Name, f.Size, step, tier2[kind]); n > 0 {
			total -= n
			b.FreedBytes += n
			b.RemovedFiles++
		}
	}
	// tier 3
	if total > hw {
		idRefs := map[string]int{}
		for _, e := range s.entries {
			if e != nil && e.SessionID != "" {
				idRefs[e.SessionID]++
			}
		}
		live := s.live()
		slices.SortFunc(live, func(a, c int) int { // live is ascending: ties keep that order, as a stable sort would
			if r := less(budgetTime(s.entries[a]), budgetTime(s.entries[c])); r != 0 {
				return r
			}
			return cmp.Compare(a, c)
		})
		for _, i := range live {
			if total <= hw {
				break
			}
			e := s.entries[i]
			if s.active != "" && strings.ToLower(e.Key) == s.active {
				continue
			}
			if ok, _ := s.preserved(i); ok {
				continue
			}
			prev := projected
			projected -= e.ChunkBytes + 2
			if projected < 2 {
				projected = 2
			}
			total += projected - prev
			s.remove(i, ActEvictBudget, tier3)
			if e.PromptHash != "" {
				refCounts[e.PromptHash]--
				if refCounts[e.PromptHash] <= 0 {
					delete(refCounts, e.PromptHash)
					if v := virtual[e.PromptHash]; v > 0 {
						total -= v
					} else if f, ok := existingBlobs[e.PromptHash]; ok && blobRemovable(f, refCounts, blobCut, tempCut) {
						if n := s.removeFileForBudget(f.Name, f.Size, "budget", "skills prompt blob of evicted entry "+e.Key); n > 0 {
							total -= n
							b.FreedBytes += n
							b.RemovedFiles++
						}
					}
				}
			}
			b.RemovedEntries++
			if e.SessionID == "" {
				continue
			}
			idRefs[e.SessionID]--
			if idRefs[e.SessionID] > 0 {
				continue
			}
			for _, a := range s.artifacts(i, e) {
				if n := s.removeForBudget(a, "budget", "transcript or sidecar of budget-evicted entry "+e.Key); n > 0 {
					total -= n
					b.FreedBytes += n
					b.RemovedFiles++
				}
			}
		}
	}
	b.TotalBytesAfter = total
	return b
}

func (s *state) budgetRemovable(f File, refs map[string]int32, tempCut float64) bool {
	c := s.fileClass(f)
	if c&classStoreTemp != 0 {
		return f.ModMs <= tempCut
	}
	return c&classArchive != 0 || (c&classArtifact != 0 && refs[f.Name] <= 0)
}

// sweep is pruneUnreferencedSessionArtifacts: unreferenced transcripts, checkpoints and
// trajectory files not modified within pruneAfter, store temps older than 5 minutes and
// unreferenced prompt blobs, oldest first.
func (s *state) sweep(files []File, exclude ...map[string]bool) Artifacts {
	excluded := func(name string) bool {
		if s.fileSet[name] {
			return true // already removed (by the budget): the sweep would remove nothing
		}
		for _, m := range exclude {
			if m[name] {
				return true
			}
		}
		return false
	}
	st := s.opt.Settings
	older := olderThan(st.PruneAfterMs)
	a := Artifacts{ScannedFiles: len(files) + len(s.in.Blobs), OlderThanMs: older}
	refs := s.referenced()
	refCounts := s.promptRefCounts()
	cut := s.nowMs - float64(older)
	tempCut := s.nowMs - StoreTempStaleMs
	blobCut := s.nowMs - float64(max64(older, StoreTempStaleMs))
	var queue []File
	for _, f := range files {
		if excluded(f.Name) {
			continue
		}
		c := s.fileClass(f)
		if c&classStoreTemp != 0 {
			if f.ModMs <= tempCut {
				queue = append(queue, f)
			}
			continue
		}
		if f.ModMs <= cut && c&classArtifact != 0 && refs[f.Name] <= 0 {
			queue = append(queue, f)
		}
	}
	for _, f := range s.in.Blobs {
		if !excluded(f.Name) && blobRemovable(f, refCounts, blobCut, tempCut) {
			queue = append(queue, f)
		}
	}
	stale := fmt.Sprintf("unreferenced artifact not modified for %s (pruneAfter)", fmtDur(older))
	for _, f := range sortByModMs(queue) {
		why := stale
		if s.fileClass(f)&classStoreTemp != 0 {
			why = "store temp older than 5 minutes"
		} else if strings.Contains(f.Name, "/") {
			why = "unreferenced skills prompt blob"
		}
		if n := s.removeFileForBudget(f.Name, f.Size, "sweep", why); n > 0 {
			a.RemovedFiles++
			a.FreedBytes += n
		}
	}
	return a
}
