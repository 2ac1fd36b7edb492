package retention_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawdoctor/clawdoctor/internal/config"
	"github.com/clawdoctor/clawdoctor/internal/retention"
)

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in, unit string
		want     int64
		bad      bool
	}{
		{"30d", "d", 2_592_000_000, false},
		{"12h", "d", 43_200_000, false},
		{"90m", "d", 5_400_000, false},
		{"1500", "d", 1500 * 86_400_000, false},
		{"0.5", "d", 43_200_000, false},
		{" 7D ", "d", 7 * 86_400_000, false},
		{"36", "h", 36 * 3_600_000, false},
		{"1h30m", "d", 5_400_000, false},
		{"500ms", "d", 500, false},
		{"0", "d", 0, false},
		{"2w", "d", 0, true},
		{"30 d", "d", 0, true},
		{"-1d", "d", 0, true},
		{"", "d", 0, true},
		{"1h30", "d", 0, true},
	} {
		got, err := retention.ParseDuration(tc.in, tc.unit)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseDuration(%q, %s) = %d, %v; want %d, bad=%v", tc.in, tc.unit, got, err, tc.want, tc.bad)
		}
	}
}

func TestParseByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"20mb", 20_971_520, false},
		{"1.5gb", 1_610_612_736, false},
		{"500", 500, false},
		{"1k", 1024, false},
		{"2T", 2 << 40, false},
		{"20 mb", 0, true},
		{"1MiB", 0, true},
		{"-5", 0, true},
		{"", 0, true},
	} {
		got, err := retention.ParseByteSize(tc.in, "b")
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d, bad=%v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func i64(v int64) *int64 { return &v }

func TestResolve(t *testing.T) {
	type out struct {
		Mode                         string
		Prune                        int64
		Max                          int
		Reset, MaxDisk, High, CronMs *int64
		Notes                        int
	}
	for _, tc := range []struct {
		name string
		m    config.Maintenance
		cron config.Cron
		o    retention.Overrides
		want out
	}{
		{"defaults", config.Maintenance{}, config.Cron{}, retention.Overrides{},
			out{"enforce", 2_592_000_000, 500, i64(2_592_000_000), nil, nil, i64(86_400_000), 0}},
		{"pruneDays used when pruneAfter unset", config.Maintenance{PruneDays: 7.0}, config.Cron{}, retention.Overrides{},
			out{"enforce", 7 * 86_400_000, 500, i64(7 * 86_400_000), nil, nil, i64(86_400_000), 0}},
		{"number pruneAfter is days", config.Maintenance{PruneAfter: 0.5, Mode: "warn"}, config.Cron{}, retention.Overrides{},
			out{"warn", 43_200_000, 500, i64(43_200_000), nil, nil, i64(86_400_000), 0}},
		{"invalid pruneAfter falls back", config.Maintenance{PruneAfter: "2w"}, config.Cron{}, retention.Overrides{},
			out{"enforce", 2_592_000_000, 500, i64(2_592_000_000), nil, nil, i64(86_400_000), 1}},
		{"reset retention false", config.Maintenance{ResetArchiveRetention: false}, config.Cron{SessionRetention: false}, retention.Overrides{},
			out{"enforce", 2_592_000_000, 500, nil, nil, nil, nil, 0}},
		{"max 1gb high default 80%", config.Maintenance{MaxDiskBytes: "1gb"}, config.Cron{SessionRetention: "36"}, retention.Overrides{},
			out{"enforce", 2_592_000_000, 500, i64(2_592_000_000), i64(1 << 30), i64(858_993_459), i64(36 * 3_600_000), 0}},
		{"high clamped to max", config.Maintenance{MaxDiskBytes: "100mb", HighWaterBytes: "200mb"}, config.Cron{}, retention.Overrides{},
			out{"enforce", 2_592_000_000, 500, i64(2_592_000_000), i64(100 << 20), i64(100 << 20), i64(86_400_000), 0}},
		{"max 0 is a 0-byte budget with a note", config.Maintenance{MaxDiskBytes: 0.0}, config.Cron{}, retention.Overrides{},
			out{"enforce", 2_592_000_000, 500, i64(2_592_000_000), i64(0), i64(0), i64(86_400_000), 1}},
		{"flags beat config", config.Maintenance{PruneAfter: "7d", MaxEntries: 10.0}, config.Cron{},
			retention.Overrides{PruneAfter: "1d", MaxEntries: "3", MaxDiskBytes: "1000", ResetArchiveRetention: "false"},
			out{"enforce", 86_400_000, 3, nil, i64(1000), i64(800), i64(86_400_000), 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := retention.Resolve(tc.m, tc.cron, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			got := out{s.Mode, s.PruneAfterMs, s.MaxEntries, s.ResetArchiveRetentionMs, s.MaxDiskBytes, s.HighWaterBytes, s.CronRetentionMs, len(s.Notes)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	if _, err := retention.Resolve(config.Maintenance{}, config.Cron{}, retention.Overrides{MaxDiskBytes: "1MiB"}); err == nil {
		t.Error("an invalid --max-disk-bytes must be an error")
	}
}

func TestClassify(t *testing.T) {
	// store.md §3.2 truth table, plus the synthetic and unscoped rows.
	for _, tc := range []struct {
		key, chatType string
		want          retention.Class
	}{
		{"agent:main:main", "direct", retention.Ordinary},
		{"agent:main:discord:channel:1", "", retention.Protected},
		{"agent:main:slack:channel:c1:thread:99", "", retention.Protected},
		{"agent:main:telegram:group:-100:topic:7", "", retention.Protected},
		{"agent:main:telegram:direct:42:topic:7", "", retention.Protected},
		{"agent:main:whatsapp:direct:+1555", "group", retention.Protected},
		{"agent:main:cron:job1:run:abc", "group", retention.Synthetic},
		{"agent:main:main:heartbeat", "", retention.Synthetic},
		{"agent:main:matrix:room:!x:srv", "room", retention.Ordinary},
		{"agent:main:subagent:5e2c", "group", retention.Synthetic},
		{"agent:main:acp:4d1a", "", retention.Synthetic},
		{"agent:main:hook:0b8e", "", retention.Synthetic},
		{"agent:main:node:mac-mini", "", retention.Synthetic},
		{"agent:main:explicit:research", "", retention.Ordinary},
		{"agent:main:direct:alice", "channel", retention.Protected},
		{"agent:main:main", "", retention.Ordinary},
		{"telegram:group:-100", "", retention.Protected},
		{"cron:x", "", retention.Ordinary},
		{"agent:main:main:thread:", "", retention.Ordinary},
		{"Agent:Main:Discord:Channel:1", "", retention.Protected},
	} {
		if got, why := retention.Classify(tc.key, tc.chatType); got != tc.want {
			t.Errorf("Classify(%q, %q) = %s (%s), want %s", tc.key, tc.chatType, got, why, tc.want)
		}
	}
	if !retention.IsModelRunKey("agent:main:explicit:model-run-1b4e28ba-2fa1-11d2-883f-0016d3cca427") ||
		retention.IsModelRunKey("agent:main:explicit:model-run-xyz") {
		t.Error("IsModelRunKey")
	}
	if !retention.IsCronRunKey("agent:main:cron:nightly:run:r1") || retention.IsCronRunKey("agent:main:cron:nightly") {
		t.Error("IsCronRunKey")
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		name                               string
		archive, primary, check, traj, tmp bool
	}{
		{"abc.jsonl", false, true, false, false, false},
		{"abc-topic-42.jsonl", false, true, false, false, false},
		{"abc.jsonl.reset.2026-03-14T09-05-33.123Z", true, false, false, false, false},
		{"abc.jsonl.deleted.2026-03-14T09-05-33Z", true, false, false, false, false},
		{"abc.jsonl.deleted.2026-03-14T09-05-33.123Z.zst", false, false, false, false, false},
		{"abc.jsonl.bak.2026-03-14T09-05-33.123Z", true, false, false, false, false},
		{"sessions.json.bak.1741939200000", true, false, false, false, false},
		{"abc.jsonl.bak-123-1741939200000", false, false, false, false, false},
		{"abc.checkpoint.0b8e1c2d-1111-4222-8333-444455556666.jsonl", false, false, true, false, false},
		{"abc.checkpoint.0b8e1c2d-1111-0222-8333-444455556666.jsonl", false, true, false, false, false},
		{"abc.trajectory.jsonl", false, false, false, true, false},
		{"abc.trajectory-path.json", false, false, false, true, false},
		{"sessions.json.123.0b8e1c2d-1111-4222-8333-444455556666.tmp", false, false, false, false, true},
		{"sessions.json.0b8e1c2d-1111-4222-8333-444455556666.tmp", false, false, false, false, true},
		{"Sessions.JSON.0B8E1C2D-1111-4222-8333-444455556666.TMP", false, false, false, false, true},
		{"sessions.json.0b8e1c2d-1111-4222-8333-444455556666.tmpx", false, false, false, false, false},
		{"sessions.json.0b8e1c2d-1111-4222-8333-444455556666.tmp.jsonl", false, true, false, false, false},
		{".tmp", false, false, false, false, false},
		{"sessions.json.bak.17419x", false, false, false, false, false},
		{"sessions.json.clawdoctor-20260505T120000Z.bak", false, false, false, false, false},
		{"sessions.json", false, false, false, false, false},
	} {
		got := [5]bool{retention.IsArchive(tc.name), retention.IsPrimaryTranscript(tc.name), retention.IsCheckpoint(tc.name),
			retention.IsTrajectory(tc.name), retention.IsStoreTemp(tc.name, "sessions.json")}
		want := [5]bool{tc.archive, tc.primary, tc.check, tc.traj, tc.tmp}
		if got != want {
			t.Errorf("%s: archive/primary/checkpoint/trajectory/temp = %v, want %v", tc.name, got, want)
		}
	}
}

func TestValidSessionID(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"3f0c2a9e-6b1d-4c55-9a0e-1c2d3e4f5a6b", true},
		{" ABC.def_1 ", true},
		{"a", true},
		{"", false},
		{".hidden", false},
		{"-x", false},
		{"a/b", false},
		{"a b", false},
		{"é", false},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{"x.checkpoint.0b8e1c2d-1111-4222-8333-444455556666", false},
		{"@x", false},
		{"a[b", false},
	} {
		if _, ok := retention.ValidSessionID(tc.in); ok != tc.ok {
			t.Errorf("ValidSessionID(%q) = %v, want %v", tc.in, ok, tc.ok)
		}
	}
}

// FuzzParseGrammars: the duration and size grammars never panic, never go negative, and a
// value they accept is accepted again when written in its base unit.
func FuzzParseGrammars(f *testing.F) {
	for _, s := range []string{"30d", "1h30m", "0.5", "20mb", "1.5gb", "2w", "", "9999999999999999999d", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ms, err := retention.ParseDuration(s, "d"); err == nil {
			if ms < 0 {
				t.Fatalf("ParseDuration(%q) = %d", s, ms)
			}
			if again, err := retention.ParseDuration(strconv.FormatInt(ms, 10)+"ms", "d"); err != nil || again != ms {
				t.Fatalf("ParseDuration(%q) = %d, but %dms gives %d, %v", s, ms, ms, again, err)
			}
		}
		if b, err := retention.ParseByteSize(s, "b"); err == nil {
			if b < 0 {
				t.Fatalf("ParseByteSize(%q) = %d", s, b)
			}
			if again, err := retention.ParseByteSize(strconv.FormatInt(b, 10), "b"); err != nil || again != b {
				t.Fatalf("ParseByteSize(%q) = %d, again %d, %v", s, b, again, err)
			}
		}
	})
}
