package retention

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestClassify: the classes the listing computes once are the predicates the plan's steps
// asked of each name before, on names of every kind the sessions dir holds.
func TestClassify(t *testing.T) {
	const id = "0f8e2a4c-1b3d-4e5f-9a7b-6c5d4e3f2a1b"
	names := []string{
		"sessions.json", "sessions.json.bak.12", "sessions.json.bak.x",
		id + ".jsonl", id + ".JSONL", id + ".trajectory.jsonl", id + ".trajectory-path.json",
		id + ".jsonl.deleted.2026-05-01T10-00-00.000Z", id + ".jsonl.reset.2026-05-01T10-00-00Z",
		id + ".jsonl.bak.2026-05-01T10-00-00.000Z", id + ".jsonl.bak.nope", id + ".bak.2026-05-01T10-00-00Z.jsonl",
		"s.checkpoint." + id + ".jsonl", "s.CHECKPOINT." + strings.ToUpper(id) + ".jsonl",
		"s.checKpoint." + id + ".jsonl", // K: the Kelvin sign, lower-cased to k
		"s.checkpoint." + id + ".jsonl.deleted.2026-05-01T10-00-00Z",
		"sessions.json." + id + ".tmp", "sessions.json.123." + id + ".tmp", "SESSIONS.JSON." + id + ".TMP",
		"sessions.json.x." + id + ".tmp", "other.json." + id + ".tmp", "notes.txt", "é.jsonl", "",
	}
	for _, n := range names {
		want := classKnown
		if IsStoreTemp(n, "sessions.json") {
			want |= classStoreTemp
		}
		if IsArchive(n) {
			want |= classArchive
		}
		if isUnreferencedArtifactName(n) {
			want |= classArtifact
		}
		if got := classify(n, "sessions.json"); got != want {
			t.Errorf("classify(%q) = %04b, want %04b", n, got, want)
		}
		if got, want := containsCheckpoint(n), strings.Contains(strings.ToLower(n), ".checkpoint."); got != want {
			t.Errorf("containsCheckpoint(%q) = %v, want %v", n, got, want)
		}
	}
}

// TestIsSafeSessionID: the loop accepts what the regexp it replaced accepted.
func TestIsSafeSessionID(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@-]*$`)
	old := func(s string) bool {
		t := strings.TrimSpace(s)
		if t == "" || len(t) > 255 || strings.ContainsAny(t, `/\`) || t == "." || t == ".." {
			return false
		}
		return re.MatchString(t)
	}
	ids := []string{"", " ", ".", "..", "a", "A9", " abc ", "a.b_c:d@e-f", "-a", ".a", "_a", ":a", "a/b", `a\b`,
		"a b", "é", "aé", "a\x00", "a\n", "\ta\t", strings.Repeat("a", 255), strings.Repeat("a", 256),
		" " + strings.Repeat("a", 255) + " ", "0f8e2a4c-1b3d-4e5f-9a7b-6c5d4e3f2a1b", "a+b", "a~b", "a%2f"}
	for c := 0; c < 256; c++ {
		ids = append(ids, string(rune(c)), "a"+string([]byte{byte(c)}), string([]byte{byte(c)})+"a")
	}
	for _, id := range ids {
		if got, want := isSafeSessionID(id), old(id); got != want {
			t.Errorf("isSafeSessionID(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestSortByModMs: the files come out in the order a stable sort by ModMs gives, ties (many
// here) in their order before.
func TestSortByModMs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 19, 20, 21, 1000, 50_000} {
		files := make([]File, n)
		for i := range files {
			files[i] = File{Name: fmt.Sprint(i), ModMs: float64(rng.IntN(max(n/7, 1))) + 0.5*float64(rng.IntN(2))}
		}
		want := slices.Clone(files)
		slices.SortStableFunc(want, func(a, b File) int { return less(a.ModMs, b.ModMs) })
		if got := sortByModMs(files); !slices.Equal(got, want) {
			t.Errorf("%d files: order differs from the stable sort", n)
		}
	}
}
