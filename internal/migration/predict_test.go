package migration_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdoctor/clawdoctor/internal/conformance"
	"github.com/clawdoctor/clawdoctor/internal/migration"
)

// issue 29, scope 1: Predict says how many events the real import of 2026.8.1 and 2026.9.6
// stores of each of 504 transcripts (matrix mutations, fixtures, generated faults, damage
// around the import's 64 KiB read chunks): every answer equals the recorded one of the real
// releases (testdata/oracle/import.jsonl, recorded live by internal/conformance's
// TestLiveImportPrediction, which .ci/run runs).
func TestPredictMatchesImport(t *testing.T) {
	inputs, err := conformance.ImportInputs(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string][]byte{}
	for _, in := range inputs {
		byName[in.Name] = in.Data
	}
	f, err := os.Open(filepath.Join("testdata", "oracle", "import.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, truncated := 0, 0
	for sc.Scan() {
		var r struct {
			Release, Name, SHA256 string
			Events                int64
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		data, ok := byName[r.Name]
		if !ok {
			t.Fatalf("%s: no such input (the inputs changed: re-record with -update-import)", r.Name)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != r.SHA256 {
			t.Fatalf("%s: the input's bytes changed since it was recorded: re-record with -update-import", r.Name)
		}
		p, err := migration.Predict(context.Background(), bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if p.Kept != max(r.Events, 0) {
			t.Errorf("%s %s: the import stored %d events, Predict says %d (stop %d: %s)", r.Release, r.Name, r.Events, p.Kept, p.Stop, p.Reason)
		}
		if p.Truncates() {
			truncated++
		}
		n++
	}
	if n < 900 || truncated < 50 {
		t.Fatalf("%d records, %d truncating: the oracle checks too little", n, truncated)
	}
	t.Logf("%d records, %d where the import leaves entries out", n, truncated)
}

// The cases the oracle shows, by hand: what stops the import and what is counted.
func TestPredict(t *testing.T) {
	hdr := `{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}`
	e := func(id string) string {
		return `{"type":"message","id":"` + id + `","parentId":null,"timestamp":"2026-05-01T00:00:00.000Z","message":{"role":"user","content":"x"}}`
	}
	for _, tc := range []struct {
		name                    string
		in                      string
		kept, stop, lost, dups  int64
		bom, crlf, trimmed, hdr int64
	}{
		{"clean", hdr + "\n" + e("a") + "\n", 2, 0, 0, 0, 0, 0, 0, 1},
		{"torn line 3 of 5", hdr + "\n" + e("a") + "\n" + `{"type":"mess` + "\n" + e("b") + "\n" + e("c") + "\n", 2, 3, 2, 0, 0, 0, 0, 1},
		{"BOM and CRLF are trimmed", "\ufeff" + hdr + "\r\n" + e("a") + "\r\n", 2, 0, 0, 0, 1, 1, 0, 1},
		{"blank and null lines skipped", hdr + "\n\n  \nnull\n0\n" + e("a") + "\n", 2, 0, 0, 0, 0, 0, 0, 1},
		{"a repeated id is stored once", hdr + "\n" + e("a") + "\n" + e("a") + "\n", 2, 0, 0, 1, 0, 0, 0, 1},
		{"invalid UTF-8 in the first chunk: nothing", hdr + "\n" + e("a") + "\n" + "{\"x\":\"\xff\"}\n" + e("b") + "\n", 0, 1, 4, 0, 0, 0, 0, 0},
		{"ends inside a sequence", hdr + "\n" + e("a") + "\n" + "{\"x\":\"\xe2\x82", 2, 3, 0, 0, 0, 0, 0, 1},
		{"second header kept", hdr + "\n" + e("a") + "\n" + hdr + "\n", 3, 0, 0, 0, 0, 0, 0, 2},
	} {
		p, err := migration.Predict(context.Background(), strings.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		got := [8]int64{p.Kept, p.Stop, p.Lost, p.Dups, p.BOM, p.CRLF, p.Trimmed, p.Headers}
		want := [8]int64{tc.kept, tc.stop, tc.lost, tc.dups, tc.bom, tc.crlf, tc.trimmed, tc.hdr}
		if got != want {
			t.Errorf("%s: kept, stop, lost, dups, bom, crlf, trimmed, headers = %v, want %v (%s)", tc.name, got, want, p.Reason)
		}
	}
}

// A line read again at its offset once it is long (a plain file) is predicted as a line
// gathered chunk by chunk: every input of the import differential, with every line past
// 0, 7 and 70,000 bytes read that way, gives the same prediction.
func TestPredictLongLinesReadAgain(t *testing.T) {
	inputs, err := conformance.ImportInputs(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs {
		want, err := migration.Predict(context.Background(), bytes.NewReader(in.Data))
		if err != nil {
			t.Fatal(err)
		}
		for _, spill := range []int64{0, 7, 70_000} {
			got, err := migration.PredictAt(context.Background(), bytes.NewReader(in.Data), bytes.NewReader(in.Data), spill)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s, spilled past %d bytes: %+v, want %+v", in.Name, spill, got, want)
			}
		}
	}
}
