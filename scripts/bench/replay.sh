#!/usr/bin/env bash
# scripts/bench/replay.sh: time and peak RSS of `clawdoctor replay` over one transcript of
# 100,000 entries (compactions, branches, tool calls, several providers), for four target
# providers, next to wc -l, jq -c . and a Node JSON.parse-per-line
# stream over the same file in the same run (the floor any replay must pay to read the file).
#
#   scripts/bench/replay.sh [FILE]
#
# Run by scripts/bench.sh (which sets BENCH_BIN and BENCH_REPLAY100K), or alone: FILE, else
# $BENCH_REPLAY100K, else a transcript generated once into $BENCH_TMP with
# `clawdoctor fixtures generate --single-transcript --entries ${BENCH_ENTRIES:-100000}`.
# Prints name<TAB>MB/s<TAB>peak RSS lines (MB/s over the file's bytes).
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

bench_bin
file=${1:-${BENCH_REPLAY100K:-}}
if [ -z "$file" ]; then
	file=$(bench_transcript "$BENCH_TMP/in/replay-bench" 5 --entries "${BENCH_ENTRIES:-100000}")
fi
[ -r "$file" ] || { echo "replay.sh: cannot read $file" >&2; exit 4; }
bytes=$(bench_size "$file")
bench_note "replay: $file, $bytes bytes, $(wc -l <"$file") lines, $(nproc) cores"
cat "$file" >/dev/null # the page cache holds it for every run alike

# exit 1 means "hygiene changed something / would compact": a normal replay result
r=$BENCH_BIN
bench_measure replay.anthropic "$bytes" "$r" --no-progress replay --provider anthropic --model claude-sonnet-4-5 "$file"
bench_measure replay.anthropic-json "$bytes" "$r" --no-progress --json replay --provider anthropic --model claude-sonnet-4-5 "$file"
bench_measure replay.google "$bytes" "$r" --no-progress replay --provider google --model gemini-2.5-pro "$file"
bench_measure replay.mistral "$bytes" "$r" --no-progress replay --provider mistral --model mistral-large-latest "$file"
bench_measure replay.openai-cjk "$bytes" "$r" --no-progress replay --estimator cjk --boundary pi-0.58 --provider openai --model gpt-5 "$file"
bench_measure replay.anthropic-recheck "$bytes" "$r" --no-progress replay --recheck-compactions --provider anthropic --model claude-sonnet-4-5 "$file"
bench_baselines replay "$file"
bench_exit
