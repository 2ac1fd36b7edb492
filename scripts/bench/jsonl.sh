#!/usr/bin/env bash
# scripts/bench/jsonl.sh: read+validate throughput and peak RSS of `clawdoctor validate` on one
# big transcript, next to wc -l, jq -c . and a Node JSON.parse-per-line stream on the same file
# in the same run (the jsonl engine's figures in docs/validate.md and the README).
#
#   scripts/bench/jsonl.sh [FILE]
#
# Run by scripts/bench.sh (which sets BENCH_BIN and BENCH_1G), or alone: FILE, else $BENCH_1G,
# else a transcript of ${BENCH_SIZE:-1GiB} generated once into $BENCH_TMP with
# `go run ./jsonl/internal/linegen/jsonlgen`. Prints name<TAB>MB/s<TAB>peak RSS lines.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

bench_bin
file=${1:-${BENCH_1G:-}}
if [ -z "$file" ]; then
	file="$BENCH_TMP/jsonl-bench.jsonl"
	if [ ! -s "$file" ]; then
		bench_note "generating ${BENCH_SIZE:-1GiB} into $file"
		(cd "$repo" && go run ./jsonl/internal/linegen/jsonlgen -size "${BENCH_SIZE:-1GiB}" -seed 1) >"$file" || exit 4
	fi
fi
[ -r "$file" ] || { echo "jsonl.sh: cannot read $file" >&2; exit 4; }
bytes=$(bench_size "$file")
bench_note "jsonl: $file, $bytes bytes, $(nproc) cores"
cat "$file" >/dev/null # the page cache holds it for every run alike

# measure_cpu NAME CMD...: like bench_measure, plus a NAME.cpu row with MB per CPU second
# (user+sys): on a machine shared with other jobs the wall clock swings with their load, the
# CPU time of the work much less.
measure_cpu() {
	local name=$1
	shift
	if [ ! -x /usr/bin/time ]; then
		bench_measure "$name" "$bytes" "$@"
		return
	fi
	/usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/.time.cpu" "$@" >/dev/null 2>"$BENCH_TMP/$name.err"
	local rc=$?
	bench_check "$name" $rc "$1"
	read -r wall user sys kib < <(tail -n 1 "$BENCH_TMP/.time.cpu")
	bench_row "$name" "$(awk -v b="$bytes" -v s="$wall" 'BEGIN{if (s<=0) s=0.01; printf "%.1f MB/s", b/1e6/s}')" \
		"$(awk -v k="$kib" 'BEGIN{printf "%.1f MiB", k/1024}')"
	bench_row "$name.cpu" "$(awk -v b="$bytes" -v u="$user" -v s="$sys" 'BEGIN{c=u+s; if (c<=0) c=0.01; printf "%.1f MB/cpu-s (%.2f s CPU)", b/1e6/c, c}')" "-"
}

bench_note "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
# clawdoctor: on all cores (the default), and with JSON checked on the reading goroutine only.
measure_cpu jsonl.clawdoctor-validate "$BENCH_BIN" --no-progress validate "$file"
measure_cpu jsonl.clawdoctor-validate-1core "$BENCH_BIN" --no-progress validate --workers 1 "$file"
# the baselines of bench_baselines (lib.sh), each run once, with their CPU time too
measure_cpu jsonl.wc-l wc -l "$file"
if bench_need jq; then
	measure_cpu jsonl.jq-c jq -c . "$file"
fi
if bench_need node nodejs; then
	measure_cpu jsonl.node-json-parse node --max-old-space-size=4096 "$BENCH_NODE_PARSE" "$file"
fi
bench_note "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
bench_exit
