package conformance

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clawdoctor/clawdoctor/fixtures"
	"github.com/clawdoctor/clawdoctor/internal/conformance/mutate"
)

// ImportInput is one transcript the import differential runs through the real SQLite import.
type ImportInput struct {
	Name string
	Data []byte
}

// ImportInputs are the transcripts of the import differential (TestLiveImportPrediction),
// made the same way every time: byte-level mutations of the provider × block matrix, every
// fixture transcript, the live transcripts of generated state dirs with every line-level fault,
// transcripts crafted around the import's 64 KiB read chunks (invalid UTF-8 and torn lines
// before, at and after a chunk boundary), and the corpus's transcripts when corpus is set.
func ImportInputs(ctx context.Context, corpus string) ([]ImportInput, error) {
	var out []ImportInput
	bases := mutate.Matrix(401, 1)
	for _, m := range mutate.Generate(401, bases, 400) {
		out = append(out, ImportInput{Name: m.Name, Data: m.Data})
	}
	ents, err := fs.ReadDir(fixtures.FS, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		b, err := fs.ReadFile(fixtures.FS, e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, ImportInput{Name: "fixture/" + e.Name(), Data: b})
	}
	faults := []string{"torn", "garbage", "bom", "crlf", "nul", "glued", "utf8", "dup-header", "no-header", "blank-user"}
	for seed := uint64(1); seed <= 3; seed++ {
		dir, err := os.MkdirTemp("", "clawdoctor-import-inputs-")
		if err != nil {
			return nil, err
		}
		_, gerr := fixtures.Generate(ctx, filepath.Join(dir, "s"), fixtures.Options{Agents: 1, Sessions: 10, Seed: seed, Faults: faults, Now: fixtures.DefaultNow})
		if gerr == nil {
			sessions := filepath.Join(dir, "s", "agents", "main", "sessions")
			names, _ := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
			sort.Strings(names)
			for _, p := range names {
				b, err := os.ReadFile(p)
				if err == nil && !strings.Contains(filepath.Base(p), ".checkpoint.") {
					out = append(out, ImportInput{Name: fmt.Sprintf("gen/%d/%s", seed, filepath.Base(p)), Data: b})
				}
			}
		}
		os.RemoveAll(dir)
		if gerr != nil {
			return nil, gerr
		}
	}
	out = append(out, chunkInputs()...)
	if corpus != "" {
		_ = filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err == nil {
				rel, _ := filepath.Rel(corpus, p)
				out = append(out, ImportInput{Name: "corpus/" + filepath.ToSlash(rel), Data: b})
			}
			return nil
		})
	}
	return out, nil
}

// chunkInputs are transcripts of ~200 KiB whose one damage sits before, on and after the
// 64 KiB boundaries the import reads at: invalid UTF-8 (the decoder throws for a whole chunk,
// so lines before the bad byte in its chunk are lost too), a truncated sequence at the end, a
// torn line.
func chunkInputs() []ImportInput {
	const id = "0c1e0000-0000-4000-8000-000000000001"
	line := func(i int) string {
		return fmt.Sprintf(`{"type":"message","id":"m%d","parentId":%s,"timestamp":"2026-05-01T00:00:00.000Z","message":{"role":"user","content":"%s","timestamp":1}}`,
			i, map[bool]string{true: "null", false: fmt.Sprintf(`"m%d"`, i-1)}[i == 0], strings.Repeat("abcdefgh", 60+i%7))
	}
	var base bytes.Buffer
	base.WriteString(`{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	for i := 0; base.Len() < 200<<10; i++ {
		base.WriteString(line(i) + "\n")
	}
	data := base.Bytes()
	var out []ImportInput
	for _, at := range []int{30000, 65535 - 200, 65536 - 3, 65536, 65536 + 10, 131072 + 500, len(data) - 10} {
		for _, dmg := range []struct {
			name string
			b    []byte
		}{{"ff", []byte{0xff}}, {"surrogate", []byte{0xed, 0xa0, 0x80}}, {"overlong", []byte{0xc0, 0xaf}}, {"cut-e2", []byte{0xe2, 0x82}}} {
			b := bytes.Clone(data)
			pos := at
			for pos < len(b) && b[pos] != 'a' && b[pos] != 'b' { // inside a text, not the JSON's structure
				pos++
			}
			b = append(b[:pos:pos], append(bytes.Clone(dmg.b), b[pos:]...)...)
			out = append(out, ImportInput{Name: fmt.Sprintf("chunk/%s@%d", dmg.name, at), Data: b})
		}
		torn := bytes.Clone(data)
		if nl := bytes.IndexByte(torn[at:], '\n'); nl > 20 {
			torn = append(torn[:at+nl-20:at+nl-20], torn[at+nl:]...) // a line loses its end
			out = append(out, ImportInput{Name: fmt.Sprintf("chunk/torn@%d", at), Data: torn})
		}
	}
	// a file ending inside a UTF-8 sequence, without a final newline
	out = append(out, ImportInput{Name: "chunk/ends-in-sequence", Data: append(bytes.Clone(data), []byte(line(9999)[:50]+"\xe2\x82")...)})
	return out
}
