#!/usr/bin/env bash
# scripts/bench.sh: the benchmark orchestrator.
#
#   scripts/bench.sh [--quick] [--keep] [--only jsonl,repair,...]
#
# Builds clawdoctor once, generates the inputs with `clawdoctor fixtures generate` (timing each
# generation), then runs every scripts/bench/<area>.sh and prints one table of figures.
# Big files go to $BENCH_TMP (default: a fresh /tmp/clawdoctor-bench.XXXXXX, removed at the end
# unless --keep). Inputs that already exist in a given BENCH_TMP are reused, so
#   BENCH_TMP=/tmp/cb scripts/bench.sh --keep; BENCH_TMP=/tmp/cb scripts/bench.sh --only repair
# generates once.
#
# Environment passed to every scripts/bench/<area>.sh (all absolute paths):
#   BENCH_BIN         the clawdoctor binary built for this run
#   BENCH_TMP         scratch dir; write outputs and copies here (never into the inputs: copy an
#                     input first if your command writes, the inputs are shared by every script)
#   BENCH_SIZE        the size of the big transcripts (default 1GiB; --quick: 64MiB)
#   BENCH_1G          one transcript of BENCH_SIZE bytes, no faults (read+validate, audit)
#   BENCH_1G_BAD      the same size with 0.1% malformed lines (torn/garbage/glued; repair),
#                     its manifest: $(dirname of its state dir)/manifest.json, see BENCH_1G_BAD_DIR
#   BENCH_1G_DIR, BENCH_1G_BAD_DIR      the state dirs holding those two transcripts
#   BENCH_STATE10K    a state dir, one agent "main", 10,000 sessions (400MiB of transcripts;
#                     --quick: 1,000 and 40MiB) with every fault kind injected once, archives,
#                     locks, checkpoints, trajectories, orphans, and a gateway log in logs/
#                     (BENCH_GATEWAY_LOG); manifest in $BENCH_STATE10K/manifest.json
#   BENCH_STORE100K   a state dir, one agent "main": sessions.json with 100,000 entries and
#                     200,000 files in agents/main/sessions (--quick: 10,000 and 20,000)
#   BENCH_REPLAY100K  one transcript of 100,000 entries (--quick: 10,000) with compactions,
#                     branches, tool calls and several providers (replay)
#   BENCH_GATEWAY_LOG a gateway log (file JSON-lines format) with fallback decisions and CLI
#                     session-id conflicts, beside BENCH_STATE10K
#   BENCH_QUICK       1 with --quick
# and scripts/bench/lib.sh for the helpers (bench_measure, bench_baselines, bench_need,
# $BENCH_NODE_PARSE, $BENCH_NODE_REPAIR). Each area script prints lines
#   name<TAB>MB/s-or-seconds<TAB>peakRSS
# for clawdoctor and for its baselines beside them; notes go to stderr as "# ...".
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
quick=0 keep=0 only=""
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--keep) keep=1 ;;
	--only) only=$2; shift ;;
	--only=*) only=${1#--only=} ;;
	-h|--help) sed -n '2,40p' "$0"; exit 0 ;;
	*) echo "bench.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

if [ -z "${BENCH_TMP:-}" ]; then
	BENCH_TMP=$(mktemp -d /tmp/clawdoctor-bench.XXXXXX)
	[ $keep = 1 ] || trap 'rm -rf "$BENCH_TMP"' EXIT
fi
mkdir -p "$BENCH_TMP"
BENCH_TMP=$(cd "$BENCH_TMP" && pwd)
export BENCH_TMP BENCH_QUICK=$quick
# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"

if [ $quick = 1 ]; then
	BENCH_SIZE=${BENCH_SIZE:-64MiB} n10k=1000 s10k=40MiB n100k=10000 f100k=20000 e100k=10000
else
	BENCH_SIZE=${BENCH_SIZE:-1GiB} n10k=10000 s10k=400MiB n100k=100000 f100k=200000 e100k=100000
fi
export BENCH_SIZE

results="$BENCH_TMP/results.tsv"
: >"$results"

BENCH_BIN="$BENCH_TMP/clawdoctor"
export BENCH_BIN
bench_build "$BENCH_BIN" || { echo "bench.sh: go build failed" >&2; exit 4; }

# gen NAME DIR ARGS...: generate a state dir once, timing it (MB/s over the transcript bytes
# written, taken from the manifest's total_bytes).
gen() {
	local name=$1 dir=$2
	shift 2
	if [ -f "$dir/manifest.json" ]; then
		bench_note "reusing $dir"
		cat "$dir.gen.tsv" 2>/dev/null | sed 's/\t/ (earlier run)\t/' >>"$results"
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	bench_measure "generate.$name" - "$BENCH_BIN" fixtures generate --out "$dir" "$@" | tee "$dir.gen.tsv" | tee -a "$results"
	[ -f "$dir/manifest.json" ] || { echo "bench.sh: generating $name failed: $(cat "$BENCH_TMP/generate.$name.err")" >&2; exit 4; }
	local bytes
	bytes=$(sed -n 's/^  "total_bytes": \([0-9]*\).*/\1/p' "$dir/manifest.json")
	bench_note "generate.$name: $bytes transcript bytes, $(find "$dir" -type f | wc -l) files"
}

# first_transcript DIR: the one live transcript of a --single-transcript state dir.
first_transcript() {
	find "$1/agents" -name '*.jsonl' ! -name '*.trajectory.jsonl' ! -name '*.checkpoint.*' | sort | head -n 1
}

BENCH_1G_DIR="$BENCH_TMP/in/1g"
BENCH_1G_BAD_DIR="$BENCH_TMP/in/1g-bad"
BENCH_STATE10K="$BENCH_TMP/in/state10k"
BENCH_STORE100K="$BENCH_TMP/in/store100k"
BENCH_REPLAY100K_DIR="$BENCH_TMP/in/replay100k"

gen 1g "$BENCH_1G_DIR" --single-transcript --size "$BENCH_SIZE" --seed 1 --faults none
gen 1g-bad "$BENCH_1G_BAD_DIR" --single-transcript --size "$BENCH_SIZE" --seed 2 --faults none --bad-lines 0.001
gen state10k "$BENCH_STATE10K" --agents 1 --sessions $n10k --size $s10k --seed 3 --faults all --gateway-log
gen store100k "$BENCH_STORE100K" --agents 1 --sessions $n100k --files $f100k --size $((n100k / 1000))MiB --seed 4 --faults none
gen replay100k "$BENCH_REPLAY100K_DIR" --single-transcript --entries $e100k --seed 5 --faults none

BENCH_1G=$(first_transcript "$BENCH_1G_DIR")
BENCH_1G_BAD=$(first_transcript "$BENCH_1G_BAD_DIR")
BENCH_REPLAY100K=$(first_transcript "$BENCH_REPLAY100K_DIR")
BENCH_GATEWAY_LOG=$(find "$BENCH_STATE10K/logs" -name '*.log' 2>/dev/null | sort | head -n 1)
export BENCH_1G BENCH_1G_BAD BENCH_1G_DIR BENCH_1G_BAD_DIR BENCH_STATE10K BENCH_STORE100K \
	BENCH_REPLAY100K BENCH_GATEWAY_LOG
bench_note "BENCH_1G=$BENCH_1G ($(bench_size "$BENCH_1G") bytes)"
bench_note "BENCH_1G_BAD=$BENCH_1G_BAD ($(bench_size "$BENCH_1G_BAD") bytes)"
bench_note "BENCH_REPLAY100K=$BENCH_REPLAY100K ($(bench_size "$BENCH_REPLAY100K") bytes)"

failed=()
for s in "$here"/bench/*.sh; do
	area=$(basename "$s" .sh)
	[ "$area" = lib ] && continue
	if [ -n "$only" ] && ! printf ',%s,' "$only" | grep -q ",$area,"; then
		continue
	fi
	bench_note "running bench/$area.sh"
	bash "$s" | tee -a "$results"
	rc=${PIPESTATUS[0]}
	if [ "$rc" != 0 ]; then
		bench_note "bench/$area.sh exited $rc"
		failed+=("$area")
	fi
done

echo
echo "clawdoctor benchmarks ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, BENCH_SIZE=$BENCH_SIZE)"
{
	printf 'name\tresult\tpeak RSS\n'
	grep -v '^#' "$results"
} | column -t -s "$(printf '\t')"
if [ ${#failed[@]} -gt 0 ] || [ -n "$(cat "$BENCH_TMP"/failed.* 2>/dev/null)" ]; then
	echo "bench.sh: FAILED runs (a baseline that fails is no figure): $(cat "$BENCH_TMP"/failed.* 2>/dev/null | tr '\n' ';') ${failed[*]}" >&2
	exit 1
fi
