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

if [ -z "${BENCH_BIN:-}" ]; then
	BENCH_BIN="$BENCH_TMP/clawdoctor"
	bench_note "building $BENCH_BIN"
	(cd "$repo" && go build -o "$BENCH_BIN" .) || exit 4
fi
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

# clawdoctor: on all cores (the default), and with JSON checked on the reading goroutine only.
bench_measure jsonl.clawdoctor-validate "$bytes" "$BENCH_BIN" --no-progress validate "$file"
bench_measure jsonl.clawdoctor-validate-1core "$bytes" "$BENCH_BIN" --no-progress validate --workers 1 "$file"
bench_baselines jsonl "$file"
