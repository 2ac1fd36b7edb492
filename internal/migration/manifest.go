// Package migration checks OpenClaw's JSONL → SQLite session migration of an agent: each
// original that `openclaw doctor --session-sqlite import` moved into
// agents/<id>/session-sqlite-import-archive/, and each .jsonl still left in sessions/, is
// compared with the agent database event by event (identical, a prefix of it, or divergent at
// a named seq), and the run manifests in <state>/session-sqlite-migration-runs/ tell which
// originals changed since they were imported. It reads only.
package migration

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RunsDir is where OpenClaw writes one manifest per migration run, inside the state dir.
const RunsDir = "session-sqlite-migration-runs"

// Move is one file a migration run moved into the import archive.
type Move struct {
	Kind        string `json:"kind"` // transcript, trajectory, unreferenced-jsonl, legacy-store
	SessionKey  string `json:"sessionKey,omitempty"`
	SourcePath  string `json:"sourcePath"`
	ArchivePath string `json:"archivePath"`
	// Artifact.Identity is what 2026.9+ recorded of the original before moving it (2026.8
	// records none).
	Artifact *struct {
		Identity *struct {
			Size   int64  `json:"size"`
			SHA256 string `json:"sha256"`
		} `json:"identity"`
	} `json:"artifact,omitempty"`
}

// SHA256 is the digest the run recorded for the original ("" when none).
func (m Move) SHA256() (string, int64) {
	if m.Artifact != nil && m.Artifact.Identity != nil {
		return m.Artifact.Identity.SHA256, m.Artifact.Identity.Size
	}
	return "", 0
}

// Run is one migration run manifest.
type Run struct {
	Path            string `json:"-"`
	ManifestVersion int    `json:"manifestVersion"`
	OpenClawVersion string `json:"openClawVersion"`
	RunID           string `json:"runId"`
	StartedAt       string `json:"startedAt"`
	CompletedAt     string `json:"completedAt"`
	Targets         []struct {
		AgentID        string `json:"agentId"`
		SQLitePath     string `json:"sqlitePath"`
		StorePath      string `json:"storePath"`
		CompletedMoves []Move `json:"completedMoves"`
		Issues         []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"issues"`
	} `json:"targets"`
}

// Runs reads every run manifest of the state dir, oldest first (failure reports beside
// them, *.failure.json, are not manifests). A manifest that does not parse is an error naming
// it.
func Runs(stateDir string) ([]Run, error) {
	dir := filepath.Join(stateDir, RunsDir)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Run
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".failure.json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		var r Run
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, n), err)
		}
		r.Path = filepath.Join(dir, n)
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StartedAt < out[j].StartedAt })
	return out, nil
}
