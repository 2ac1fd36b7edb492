package harness

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
	"github.com/clawdoctor/clawdoctor/internal/store"
)

// Input is one transcript both sides get.
type Input struct {
	Set     string // corpus, fixture, fault, spelling, matrix, mutation, corpus-mutation, path
	Name    string
	Data    []byte
	Note    string // how it was made (a mutation's base and ops)
	Private bool   // real user data: reports never quote its content
}

// ID is "set/name", what the report prints.
func (in Input) ID() string { return in.Set + "/" + in.Name }

// Sets says which inputs to collect.
type Sets struct {
	Corpus          bool   // every transcript of the corpus (../shared/corpus or $CLAWDOCTOR_CORPUS)
	Fixtures        bool   // every plain fixtures/*.jsonl file
	Faults          bool   // a generated state dir per transcript fault kind, every transcript of it
	Spellings       bool   // mutate.Spellings: ids and keys spelled with escapes, lone surrogates, duplicates, __proto__
	Matrix          int    // rounds of the provider × block matrix (0: none)
	Mutations       int    // seeded mutations of the fixtures, fault transcripts and matrix
	CorpusMutations int    // seeded mutations of the corpus transcripts (live runs only)
	Seed            uint64 // names the matrix and the mutation sets
	Paths           []string
}

// CorpusDir is where the corpus is read in place (never copied into the repository).
func CorpusDir() string {
	if d := os.Getenv("CLAWDOCTOR_CORPUS"); d != "" {
		return d
	}
	root, err := Root()
	if err != nil {
		return ""
	}
	return filepath.Join(root, "..", "shared", "corpus")
}

// Collect gathers the inputs of s, in a stable order.
func Collect(ctx context.Context, s Sets) ([]Input, error) {
	var out, bases []Input
	for _, p := range s.Paths {
		files, err := TranscriptsUnder(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			out = append(out, Input{Set: "path", Name: f, Data: data, Private: true})
		}
	}
	var corpus []Input
	if s.Corpus || s.CorpusMutations > 0 {
		dir := CorpusDir()
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("corpus %s: %w (set CLAWDOCTOR_CORPUS, or leave the corpus sets out)", dir, err)
		}
		var err error
		if corpus, err = readUnder("corpus", dir, "", true); err != nil {
			return nil, err
		}
		if s.Corpus {
			out = append(out, corpus...)
		}
	}
	if s.Fixtures || s.Mutations > 0 {
		fx, err := fixtureInputs()
		if err != nil {
			return nil, err
		}
		bases = append(bases, fx...)
		if s.Fixtures {
			out = append(out, fx...)
		}
	}
	if s.Faults || s.Mutations > 0 {
		ft, err := faultInputs(ctx, s.Seed)
		if err != nil {
			return nil, err
		}
		bases = append(bases, ft...)
		if s.Faults {
			out = append(out, ft...)
		}
	}
	if s.Matrix > 0 || s.Mutations > 0 {
		// Mutations start from round 0 only, so a mutation set does not depend on --matrix.
		for _, b := range mutate.Matrix(s.Seed, max(s.Matrix, 1)) {
			in := Input{Set: "matrix", Name: b.Name, Data: b.Data}
			if strings.HasSuffix(b.Name, "/0") {
				bases = append(bases, in)
			}
			if s.Matrix > 0 {
				out = append(out, in)
			}
		}
	}
	if s.Spellings { // not mutation bases: the mutation sets stay as they were
		for _, b := range mutate.Spellings() {
			out = append(out, Input{Set: "spelling", Name: strings.TrimPrefix(b.Name, "spellings/"), Data: b.Data})
		}
	}
	out = append(out, mutations("mutation", s.Seed, bases, s.Mutations, false)...)
	out = append(out, mutations("corpus-mutation", s.Seed, corpus, s.CorpusMutations, true)...)
	return out, nil
}

func mutations(set string, seed uint64, from []Input, n int, private bool) []Input {
	if n == 0 || len(from) == 0 {
		return nil
	}
	bases := make([]mutate.Base, len(from))
	for i, in := range from {
		bases[i] = mutate.Base{Name: in.ID(), Data: in.Data}
	}
	var out []Input
	for _, m := range mutate.Generate(seed, bases, n) {
		name := strings.TrimPrefix(m.Name, "mut/")
		out = append(out, Input{Set: set, Name: name, Data: m.Data, Private: private,
			Note: "base " + m.Base + "; " + strings.Join(m.Ops, ", ")})
	}
	return out
}

// TranscriptsUnder lists the JSONL transcripts at or below p, sorted: live and topic
// transcripts, archives, checkpoints and repair backups; compressed files (the oracle reads
// plain text), trajectories, stores and locks are left out.
func TranscriptsUnder(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	var out []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch store.Classify(d.Name()).Kind {
		case store.KindTranscript, store.KindTopic, store.KindResetArchive, store.KindDeletedArchive,
			store.KindBakArchive, store.KindCheckpoint, store.KindRepairBackup:
		default:
			return nil
		}
		if compressed(path) {
			return nil
		}
		out = append(out, path)
		return nil
	})
	sort.Strings(out)
	return out, err
}

func compressed(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	n, _ := f.Read(magic[:])
	return (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) || (n == 4 && bytes.Equal(magic[:], []byte{0x28, 0xb5, 0x2f, 0xfd}))
}

// fixtureInputs are the plain transcripts among fixtures.FS.
func fixtureInputs() ([]Input, error) {
	var out []Input
	for _, f := range fixtures.List {
		if !strings.HasSuffix(f.Name, ".jsonl") {
			continue
		}
		data, err := fixtures.FS.ReadFile(f.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, Input{Set: "fixture", Name: f.Name, Data: data})
	}
	return out, nil
}

// faultInputs generates one small state dir per transcript fault kind and returns its
// transcripts. The long-line fault is made with a line just over 1 MiB instead of 64 MiB,
// which keeps the oracle quick; repair's own tests cover the 64 MiB cap.
func faultInputs(ctx context.Context, seed uint64) ([]Input, error) {
	tmp, err := os.MkdirTemp("", "conformance-faults-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var out []Input
	for _, k := range fixtures.Kinds {
		if k.Scope != "transcript" {
			continue
		}
		dir := filepath.Join(tmp, k.Name)
		opts := fixtures.Options{Sessions: 2, Faults: []string{k.Name}, Seed: seed, ShortTexts: true, LongLine: 1<<20 + 4096}
		if _, err := fixtures.Generate(ctx, dir, opts); err != nil {
			return nil, fmt.Errorf("fault %s: %w", k.Name, err)
		}
		ins, err := readUnder("fault", dir, k.Name+"/", false)
		if err != nil {
			return nil, err
		}
		out = append(out, ins...)
	}
	return out, nil
}

// readUnder reads the transcripts at or below dir as inputs of set, named prefix + their path
// relative to dir.
func readUnder(set, dir, prefix string, private bool) ([]Input, error) {
	files, err := TranscriptsUnder(dir)
	if err != nil {
		return nil, err
	}
	var out []Input
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(dir, f)
		out = append(out, Input{Set: set, Name: prefix + filepath.ToSlash(rel), Data: data, Private: private})
	}
	return out, nil
}
