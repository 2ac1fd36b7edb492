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

if [ -z "${BENCH_BIN:-}" ]; then
	BENCH_BIN="$BENCH_TMP/clawdoctor"
	(cd "$here/../.." && go build -o "$BENCH_BIN" .) || exit 4
fi
in=${1:-${BENCH_1G_BAD:-}}
if [ -z "$in" ]; then
	gen="$BENCH_TMP/in/repair-bad"
	if [ ! -f "$gen/manifest.json" ]; then
		rm -rf "$gen"
		"$BENCH_BIN" fixtures generate --out "$gen" --single-transcript --size "${BENCH_SIZE:-1GiB}" \
			--seed 2 --faults none --bad-lines 0.001 >/dev/null || exit 4
	fi
	in=$(find "$gen/agents" -name '*.jsonl' ! -name '*.trajectory.jsonl' | sort | head -n 1)
fi
bytes=$(bench_size "$in")
work="$BENCH_TMP/repair"
rm -rf "$work"
mkdir -p "$work/sessions"
copy="$work/sessions/$(basename "$in")"
fresh() { rm -f "$work"/sessions/*; cp "$in" "$copy"; sync; }
bench_note "repair input: $in ($bytes bytes)"

# cpu_row NAME CMD...: MB per CPU-second (user+sys) of CMD, the figure that does not depend on
# how many other processes share the cores (wall-clock rows do).
cpu_row() {
	local name=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/.cpu" "$@" >/dev/null 2>&1
		read -r wall user sys kib < <(tail -n 1 "$BENCH_TMP/.cpu") # GNU time adds a status line on exit 1
		bench_row "$name" "$(awk -v b="$bytes" -v u="$user" -v s="$sys" -v w="$wall" 'BEGIN{c=u+s; if (c<=0) c=0.01; printf "%.1f MB/CPU-s (%.2f s cpu, %.2f s wall)", b/1e6/c, c, w}')" \
			"$(awk -v k="$kib" 'BEGIN{printf "%.1f MiB", k/1024}')"
	fi
}

fresh
bench_measure repair.plan-only "$bytes" "$BENCH_BIN" --no-progress repair --dry-run "$copy"
cpu_row repair.plan-only.cpu "$BENCH_BIN" --no-progress repair --dry-run "$copy"
bench_measure repair.end-to-end "$bytes" "$BENCH_BIN" --no-progress repair "$copy"
fresh
cpu_row repair.end-to-end.cpu "$BENCH_BIN" --no-progress repair "$copy"
bench_note "repair: $(grep -c . "$copy") lines after, backup $(ls "$work/sessions" | grep -c '\.bak-') file(s)"
bench_measure repair.idempotent-rerun "$bytes" "$BENCH_BIN" --no-progress repair "$copy"

fresh
if bench_need node nodejs; then
	bench_measure repair.node-baseline "$bytes" node --max-old-space-size=4096 "$BENCH_NODE_REPAIR" "$copy" "$work/node.out"
	rm -f "$work/node.out"
	cpu_row repair.node-baseline.cpu node --max-old-space-size=4096 "$BENCH_NODE_REPAIR" "$copy" "$work/node.out"
	rm -f "$work/node.out"
fi
bench_measure repair.disk-floor-copy-fsync "$bytes" dd if="$copy" of="$work/dd.out" bs=1M conv=fsync status=none
rm -rf "$work"
