package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestStatsCorpus runs `clawdoctor --json stats DIR` on a copy of every corpus folder (issue 2,
// acceptance): exit 0, and the numbers equal a count made here from the directory listing and
// sessions.json decoded with encoding/json (names by suffix; an entry points at the last path
// segment of sessionFile, else at <sessionId>.jsonl).
func TestStatsCorpus(t *testing.T) {
	corpus := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(filepath.Join(corpus, "MANIFEST.tsv")); err != nil {
		t.Skipf("corpus not found at %s (it lives beside the repo as shared/corpus): %v", corpus, err)
	}
	dirs := map[string]bool{}
	err := filepath.WalkDir(corpus, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Dir(path) != corpus {
			dirs[filepath.Dir(path)] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 25 {
		t.Fatalf("found %d corpus folders", len(dirs))
	}
	tmp := t.TempDir()
	for src := range dirs {
		rel, _ := filepath.Rel(corpus, src)
		t.Run(rel, func(t *testing.T) {
			dst := filepath.Join(tmp, rel)
			copyFiles(t, src, dst)
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), []string{"clawdoctor", "--json", "stats", dst}, nil, &stdout, &stderr)
			if code != exitClean {
				t.Fatalf("exit %d, stderr %s", code, stderr.String())
			}
			var got struct {
				Agents []struct {
					Store struct {
						Entries int `json:"entries"`
					} `json:"store"`
					Transcripts struct{ Files int } `json:"transcripts"`
					Files       struct {
						Files int
						Bytes int64
					} `json:"files"`
					Archives struct{ Files int }       `json:"archives"`
					Missing  int                       `json:"missing_transcripts"`
					Locks    struct{ Live, Stale int } `json:"locks"`
				} `json:"agents"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || len(got.Agents) != 1 {
				t.Fatalf("JSON output: %v\n%s", err, stdout.String())
			}
			a := got.Agents[0]
			want := countDir(t, dst)
			for _, c := range []struct {
				what      string
				got, want int64
			}{
				{"entries", int64(a.Store.Entries), int64(want.entries)},
				{"transcripts", int64(a.Transcripts.Files), int64(want.transcripts)},
				{"files", int64(a.Files.Files), int64(want.files)},
				{"bytes", a.Files.Bytes, want.bytes},
				{"archives", int64(a.Archives.Files), int64(want.archives)},
				{"missing", int64(a.Missing), int64(want.missing)},
				{"locks", int64(a.Locks.Live + a.Locks.Stale), int64(want.locks)},
			} {
				if c.got != c.want {
					t.Errorf("%s = %d, want %d", c.what, c.got, c.want)
				}
			}
		})
	}
}

type dirCount struct {
	entries, transcripts, files, archives, missing, locks int
	bytes                                                 int64
}

func countDir(t *testing.T, dir string) dirCount {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var c dirCount
	names := map[string]bool{}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		n := e.Name()
		names[n] = true
		c.files++
		c.bytes += info.Size()
		switch {
		case strings.HasSuffix(n, ".lock"):
			c.locks++
		case strings.Contains(n, ".jsonl.reset.") || strings.Contains(n, ".jsonl.deleted."):
			c.archives++
		case strings.HasSuffix(n, ".jsonl") && !strings.HasSuffix(n, ".trajectory.jsonl") && !strings.Contains(n, ".checkpoint."):
			c.transcripts++
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "sessions.json"))
	if err != nil {
		return c
	}
	var st map[string]struct{ SessionID, SessionFile string }
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(st))
	for k := range st {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	c.entries = len(st)
	for _, k := range keys {
		e := st[k]
		name := e.SessionID + ".jsonl"
		if e.SessionFile != "" {
			parts := strings.FieldsFunc(e.SessionFile, func(r rune) bool { return r == '/' || r == '\\' })
			name = parts[len(parts)-1]
		}
		if !names[name] {
			c.missing++
		}
	}
	return c
}

func copyFiles(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err == nil {
			_, err = io.Copy(out, in)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
}
