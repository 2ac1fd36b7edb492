package retention

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Relocated is a kept row whose sessionFile is an absolute path of another root (a state dir
// restored at another path or on another host) while its transcript is here, under the same
// file name (store.relocated-path). OpenClaw resolves the row elsewhere, so its own cleanup
// sees the local file as unreferenced and may delete it; clawdoctor never does.
type Relocated struct {
	Key         string `json:"key"`
	SessionFile string `json:"sessionFile"`
	Local       string `json:"local"` // the file in this sessions dir
	// OpenClawAction is what OpenClaw's cleanup would do to Local in this run ("" for nothing).
	OpenClawAction string `json:"openclawAction,omitempty"`
}

// stepBudgetOrphan is the Step of a disk-budget removal of an unreferenced artifact (tier 2).
const stepBudgetOrphan = "budget-orphan"

// keepSafe is where clawdoctor's cleanup departs from OpenClaw's, after the plan is made:
//   - a file a kept row names, by its sessionId (<sessionId>.jsonl) or by the file name of its
//     sessionFile, is never removed, even when OpenClaw resolves the row elsewhere;
//   - an orphan transcript (a primary transcript no row references) is archived as
//     .deleted.<ts>, never deleted.
//
// The summary is adjusted to what clawdoctor does; OpenClaw's own is kept in Plan.OpenClaw.
func (s *state) keepSafe(p *Plan) {
	keep := map[string]string{} // file name → the kept key that names it
	var outside []*Entry
	for _, e := range s.entries {
		if e == nil {
			continue
		}
		named := false // the row names its transcript by its sessionFile
		if sf := strings.TrimSpace(e.SessionFile); sf != "" {
			name := filepath.Base(strings.ReplaceAll(sf, `\`, "/"))
			if IsPrimaryTranscript(name) {
				keep[name] = e.Key
				named = true
			}
			if e.Outside != "" {
				outside = append(outside, e)
			}
		}
		// <sessionId>.jsonl is the row's history only when no sessionFile names another file:
		// a topic row (<id>-topic-<n>.jsonl) shares its sessionId with the plain transcript
		// of other rows, which the budget may need (conformance gen47-warn-budget).
		if id, ok := ValidSessionID(e.SessionID); ok && !named {
			if _, taken := keep[id+".jsonl"]; !taken {
				keep[id+".jsonl"] = e.Key
			}
		}
	}
	var folded map[string]string // keep by lower-cased name, on a case-insensitive file system
	if s.in.FoldCase {
		folded = make(map[string]string, len(keep))
		for name, key := range keep {
			folded[strings.ToLower(name)] = key
		}
	}
	exists := map[string]bool{} // the listing's names, only needed for outside rows
	if len(outside) > 0 {
		for _, f := range s.in.Files {
			exists[f.Name] = true
		}
	}
	orig := p.Summary // OpenClaw's, before the adjustments below
	if b := orig.DiskBudget; b != nil {
		c := *b
		orig.DiskBudget = &c
	}
	openclaw := map[string]string{} // what OpenClaw would do to a file clawdoctor keeps
	stamp := ArchiveStamp(s.opt.Now)
	sum := &p.Summary
	changed := false
	out := p.Files[:0]
	for _, f := range p.Files {
		key, ok := keep[f.Path]
		how := ""
		if !ok && folded != nil && !strings.Contains(f.Path, "/") {
			if key, ok = folded[strings.ToLower(f.Path)]; ok {
				how = " in another letter case (one file on this case-insensitive file system; OpenClaw compares names exactly)"
			}
		}
		if ok {
			openclaw[f.Path] = f.Action
			s.unsummarize(sum, p, f, true)
			p.Kept = append(p.Kept, FileAction{Path: f.Path, Action: FileKeep, Bytes: f.Bytes,
				Reason: fmt.Sprintf("named by kept entry %s%s: OpenClaw's cleanup would %s it (%s); clawdoctor keeps it", key, how, f.Action, f.Reason)})
			delete(s.fileSet, f.Path)
			changed = true
			continue
		}
		orphan := f.Action == FileDelete && IsPrimaryTranscript(f.Path) && !strings.Contains(f.Path, "/")
		switch {
		case orphan && f.Step == "sweep":
			// the sweep frees no budget: the orphan is archived, its bytes stay on disk
			s.unsummarize(sum, p, f, false)
			f.Action, f.To = FileArchive, f.Path+".deleted."+stamp
			f.Reason += "; archived as .deleted.<ts>, not deleted (OpenClaw deletes orphan transcripts; clawdoctor archives them where no disk budget needs their bytes)"
			changed = true
		case orphan && f.Step == stepBudgetOrphan && s.opt.KeepOrphans:
			s.unsummarize(sum, p, f, false)
			f.Action, f.To = FileArchive, f.Path+".deleted."+stamp
			f.Reason += "; archived as .deleted.<ts> (--keep-orphans): its bytes stay on disk, so the budget may not be met"
			changed = true
		case orphan && f.Step == stepBudgetOrphan:
			f.Reason += "; deleted as OpenClaw deletes it: the disk budget needs its bytes (--keep-orphans archives it instead; --backup-dir keeps a copy)"
		}
		if f.Action == FileArchive {
			p.ArchivedBytes += f.Bytes
		}
		out = append(out, f)
	}
	p.Files = out
	if b := sum.DiskBudget; b != nil && b.MaxBytes > 0 && b.TotalBytesAfter > b.MaxBytes && (b.OverBudget || b.TotalBytesBefore > b.MaxBytes) {
		p.BudgetUnmetBy = b.TotalBytesAfter - b.MaxBytes
	}
	for _, e := range outside {
		name := filepath.Base(strings.ReplaceAll(e.SessionFile, `\`, "/"))
		if !exists[name] {
			continue
		}
		p.Relocated = append(p.Relocated, Relocated{Key: e.Key, SessionFile: e.SessionFile, Local: name, OpenClawAction: openclaw[name]})
	}
	if changed {
		sum.WouldMutate = sum.Missing > 0 || sum.DMScopeRetired > 0 || sum.Pruned > 0 || sum.Capped > 0 ||
			sum.UnreferencedArtifacts.RemovedFiles > 0 || p.ModelRunPruned > 0 || p.CronRunPruned > 0 ||
			(sum.DiskBudget != nil && (sum.DiskBudget.RemovedEntries > 0 || sum.DiskBudget.RemovedFiles > 0))
		p.OpenClaw = &orig
	}
}

// unsummarize takes f out of the summary's counts: all of it when kept, only its freed bytes
// when it is archived instead of deleted (the file stays on disk either way).
func (s *state) unsummarize(sum *Summary, p *Plan, f FileAction, kept bool) {
	switch f.Step {
	case "sweep":
		if kept {
			sum.UnreferencedArtifacts.RemovedFiles--
		}
		if f.Action == FileDelete {
			sum.UnreferencedArtifacts.FreedBytes -= f.Bytes
		}
	case "budget", stepBudgetOrphan:
		if b := sum.DiskBudget; b != nil {
			if kept {
				b.RemovedFiles--
			}
			b.FreedBytes -= f.Bytes
			b.TotalBytesAfter += f.Bytes
		}
	case "retention":
		if kept {
			p.ArchiveRetired--
		}
	}
}
