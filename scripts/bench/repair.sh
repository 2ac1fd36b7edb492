#!/usr/bin/env bash
# scripts/bench/repair.sh: `clawdoctor repair` of a big transcript with 0.1% bad lines, next to
# the Node streaming baseline of OpenClaw's repair (readline + JSON.parse + JSON.stringify,
# no fsync) and the disk floor (copying the file with an fsync).
#
# Run by scripts/bench.sh (BENCH_BIN, BENCH_TMP, BENCH_1G_BAD set), or standalone:
#   scripts/bench/repair.sh [FILE]     (no FILE: generates BENCH_SIZE, default 1GiB)
# Prints name<TAB>MB/s<TAB>peak RSS lines (see lib.sh). Repair writes in place, so every run
# works on a fresh copy in $BENCH_TMP/repair; the copy is not timed.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

bench_bin
in=${1:-${BENCH_1G_BAD:-}}
if [ -z "$in" ]; then
	in=$(bench_transcript "$BENCH_TMP/in/repair-bad" 2 --size "${BENCH_SIZE:-1GiB}" --bad-lines 0.001)
fi
bytes=$(bench_size "$in")
work="$BENCH_TMP/repair"
rm -rf "$work"
mkdir -p "$work/sessions"
copy="$work/sessions/$(basename "$in")"
fresh() { rm -f "$work"/sessions/*; cp "$in" "$copy"; sync; }
bench_note "repair input: $in ($bytes bytes)"

# one run each: repair changes its input, and the rerun measures the repaired file
measure() { BENCH_CPU_ROUNDS=1 bench_measure_cpu "$1" "$bytes" "${@:2}"; }

fresh
bench_note "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
measure repair.plan-only "$BENCH_BIN" --no-progress repair --dry-run "$copy"
measure repair.end-to-end "$BENCH_BIN" --no-progress repair "$copy"
bench_note "repair: $(grep -c . "$copy") lines after, backup $(ls "$work/sessions" | grep -c '\.bak-') file(s)"
measure repair.idempotent-rerun "$BENCH_BIN" --no-progress repair "$copy"

fresh
if bench_need node nodejs; then
	measure repair.node-baseline node --max-old-space-size=4096 "$BENCH_NODE_REPAIR" "$copy" "$work/node.out"
	rm -f "$work/node.out"
fi
measure repair.disk-floor-copy-fsync dd if="$copy" of="$work/dd.out" bs=1M conv=fsync status=none
bench_note "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$work"
bench_exit
