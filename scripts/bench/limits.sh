#!/usr/bin/env bash
# scripts/bench/limits.sh: the three figures issue 32 holds against the machine's limit, each
# beside its floor in the same run, as medians of BENCH_PAIRS (default 3) alternated pairs
# (lib.sh bench_pair):
#   limits.repair-256MiB, limits.repair-<BENCH_SIZE>
#       `clawdoctor repair` (backup, fsync) of a transcript with 0.002 % bad lines, on a fresh
#       copy each time, against one `cp` + `sync` of the same file (target <= 1.5x)
#   limits.validate   `clawdoctor validate` of the clean BENCH_SIZE transcript against `wc -l`
#                     (target >= 0.5x the speed)
#   limits.sqlite-audit   `clawdoctor audit` of a SQLite-era database against the audit of the
#                     same 100 sessions as JSONL (512 MiB of events; target >= 0.8x the speed)
#
# Run by scripts/bench.sh (--only limits), or standalone: scripts/bench/limits.sh
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

bench_bin
work="$BENCH_TMP/limits"
rm -rf "$work"
mkdir -p "$work/sessions"
bench_note "limits: $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"

# repair at 256 MiB and at BENCH_SIZE (default 1 GiB)
for size in 256MiB "${BENCH_SIZE:-1GiB}"; do
	in=$(bench_transcript "$BENCH_TMP/in/limits-bad-$size" 32 --size "$size" --bad-lines 0.00002)
	copy="$work/sessions/$(basename "$in")"
	bench_pair "limits.repair-$size" "<=1.5" \
		"rm -f '$work'/sessions/* '$work/floor.out'; cp '$in' '$copy'; sync" \
		"'$BENCH_BIN' --no-progress repair '$copy'" \
		"cp '$copy' '$work/floor.out' && sync"
done
rm -f "$work"/sessions/* "$work/floor.out"

# validate against wc -l, the page cache warm for both
clean=${BENCH_1G:-$(bench_transcript "$BENCH_TMP/in/limits-clean" 31 --size "${BENCH_SIZE:-1GiB}")}
cat "$clean" >/dev/null
bench_pair limits.validate ">=0.5" "true" "'$BENCH_BIN' --no-progress validate '$clean'" "wc -l '$clean'"

# the SQLite-era audit against the JSONL audit of the same sessions
# -v2: since 2026-12-06 the generated database has the real import's identity rows and zstd
# rule (an older one in BENCH_TMP lacks them and measured a cheaper audit): regenerated
jsonl="$BENCH_TMP/in/limits-sqlite-jsonl-v2"
db_state="$BENCH_TMP/in/limits-sqlite-db-v2"
if [ ! -f "$jsonl/manifest.json" ] || [ ! -f "$db_state/agents/main/agent/openclaw-agent.sqlite" ]; then
	rm -rf "$jsonl" "$db_state"
	"$BENCH_BIN" fixtures generate --out "$jsonl" --sqlite-out "$db_state" \
		--agents 1 --sessions 100 --size 512MiB --seed 9 --faults none >/dev/null 2>&1 || {
		bench_note "FAILED: generating the SQLite inputs"
		exit 4
	}
fi
db="$db_state/agents/main/agent/openclaw-agent.sqlite"
cat "$db" >/dev/null
find "$jsonl/agents" -type f -exec cat {} + >/dev/null
bench_pair limits.sqlite-audit ">=0.8" "true" "'$BENCH_BIN' --no-progress audit '$db'" \
	"'$BENCH_BIN' --no-progress audit '$jsonl/agents/main/sessions'; [ \$? -le 1 ]"

rm -rf "$work"
bench_exit
