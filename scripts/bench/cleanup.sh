#!/usr/bin/env bash
# scripts/bench/cleanup.sh: `clawdoctor cleanup --dry-run` (the full plan: read sessions.json,
# list the sessions dir, prune, cap, disk budget down to tier 3, artifact sweep) on a store of
# 100,000 entries and 200,000 files, next to the reference `openclaw sessions cleanup
# --dry-run --json` on the same copy when ../shared/tools/openclaw-reference is there.
# Target (issue 14): under 3 s and 300 MiB.
#
# Run by scripts/bench.sh (BENCH_BIN, BENCH_TMP, BENCH_STORE100K set), or standalone:
#   scripts/bench/cleanup.sh [STATE_DIR]   (no STATE_DIR: generates BENCH_STORE100K's shape)
# Prints name<TAB>seconds<TAB>peak RSS lines (see lib.sh).
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

bench_bin
n=100000 files=200000
if [ "${BENCH_QUICK:-0}" = 1 ]; then n=10000 files=20000; fi
state=${1:-${BENCH_STORE100K:-}}
if [ -z "$state" ]; then
	state="$BENCH_TMP/in/store100k"
	if [ ! -f "$state/manifest.json" ]; then
		rm -rf "$state"
		"$BENCH_BIN" fixtures generate --out "$state" --agents 1 --sessions $n --files $files \
			--size $((n / 1000))MiB --seed 4 --faults none >/dev/null || exit 4
	fi
fi
store=$(find "$state/agents" -maxdepth 3 -name sessions.json | sort | head -n 1)
[ -n "$store" ] || { bench_note "no sessions.json under $state/agents"; exit 4; }
sessions=$(dirname "$store")
entries=$(grep -c '^  "' "$store")
count=$(find "$sessions" -maxdepth 1 -type f | wc -l)
bench_note "cleanup input: $store ($entries entries, $count files, $(du -sh "$sessions" | cut -f1))"

# A budget at half the dir forces every tier (archives and orphans, then entries).
total=$(du -sb "$sessions" | cut -f1)
budget=$((total / 2))
now=2026-06-15T12:00:00Z
bench_measure_secs cleanup.plan-defaults "$BENCH_BIN" --no-progress --now "$now" cleanup --dry-run --json --store "$store"
bench_measure_secs cleanup.plan-budget "$BENCH_BIN" --no-progress --now "$now" cleanup --dry-run --json --store "$store" \
	--max-entries 80000 --max-disk-bytes "$budget"
"$BENCH_BIN" --no-progress --now "$now" cleanup --dry-run --json --store "$store" --max-entries 80000 \
	--max-disk-bytes "$budget" >"$BENCH_TMP/cleanup.json" 2>/dev/null
bench_note "cleanup plan (budget $budget of $total bytes): $(grep -E '"(beforeCount|afterCount|pruned|capped|removedFiles|removedEntries)"' "$BENCH_TMP/cleanup.json" | tr -d ' \n' | head -c 300)"

ref=${OPENCLAW_REFERENCE:-$repo/../shared/tools/openclaw-reference}
if [ -x "$ref" ]; then
	# The generator writes compaction checkpoints as OpenClaw does (with postCompaction), so
	# the real cleanup runs on the very same store; a crash would fail this script (bench_exit).
	cfg="$BENCH_TMP/cleanup-openclaw.json"
	printf '{"session":{"maintenance":{"maxEntries":80000,"maxDiskBytes":"%s"}}}\n' "$budget" >"$cfg"
	OPENCLAW_CONFIG_PATH=/nonexistent/openclaw.json bench_measure_secs openclaw.sessions-cleanup-defaults \
		timeout 600 "$ref" sessions cleanup --dry-run --json --store "$store"
	OPENCLAW_CONFIG_PATH=$cfg bench_measure_secs openclaw.sessions-cleanup-budget \
		timeout 600 "$ref" sessions cleanup --dry-run --json --store "$store"
else
	bench_note "skipped: the OpenClaw reference ($ref) is not there"
fi
bench_exit
