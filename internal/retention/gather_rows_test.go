package retention_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/retention"
	"github.com/clawdoctor/clawdoctor/jsonl"
)

// TestGatherRowsInOrder: rows are read by several workers, but the entries, the dropped keys
// and the too-deep row an error names come out in store order, over enough rows that every
// worker reads some.
func TestGatherRowsInOrder(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 400) + "1" + strings.Repeat("}", 400)
	for _, tc := range []struct {
		name     string
		rows     int
		bad      map[int]string // row index → its value instead of a valid row
		wantDeep string         // the key the too-deep error names
	}{
		{name: "valid", rows: 9000},
		{name: "dropped rows", rows: 9000, bad: map[int]string{0: `"x"`, 1500: `[]`, 4096: `{"sessionId":"../x"}`, 8999: `7`}},
		{name: "too deep, first named", rows: 9000, bad: map[int]string{8000: `{"x":` + deep + `}`, 2100: `{"x":` + deep + `}`, 50: `"x"`}, wantDeep: "agent:main:k2100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sessions")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			var wantKeys, wantDropped []string
			b.WriteString("{")
			for i := range tc.rows {
				key := fmt.Sprintf("agent:main:k%d", i)
				v := fmt.Sprintf(`{"sessionId":"s%d","updatedAt":%d}`, i, 1_700_000_000_000+i)
				if bad, ok := tc.bad[i]; ok {
					v = bad
					wantDropped = append(wantDropped, key)
				} else {
					wantKeys = append(wantKeys, key)
				}
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, "\n  %q: %s", key, v)
			}
			b.WriteString("\n}")
			path := filepath.Join(dir, "sessions.json")
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := retention.GatherWith(context.Background(), path, "main", retention.GatherOptions{})
			if tc.wantDeep != "" {
				if !errors.Is(err, jsonl.ErrTooDeep) || !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.wantDeep)) {
					t.Fatalf("err = %v, want ErrTooDeep naming %q", err, tc.wantDeep)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for i, e := range l.Input.Entries {
				keys = append(keys, e.Key)
				if want := strings.TrimPrefix(e.Key, "agent:main:k"); e.SessionID != "s"+want {
					t.Fatalf("entry %d (%s) has sessionId %q", i, e.Key, e.SessionID)
				}
			}
			if diff := cmp.Diff(wantKeys, keys); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantDropped, l.Dropped); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
		})
	}
}
