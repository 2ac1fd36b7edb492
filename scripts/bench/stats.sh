#!/usr/bin/env bash
# scripts/bench/stats.sh: time and peak RSS of `clawdoctor stats` over the store of 100,000
# entries and 200,000 files ($BENCH_STORE100K) and the 10,000-session state dir
# ($BENCH_STATE10K), next to the parse-only floors of the same stores in the same run: `jq
# length` and Node's JSON.parse + JSON.stringify(…, null, 2) (what the gateway pays to load and
# write a store).
#
#   scripts/bench/stats.sh
#
# Run by scripts/bench.sh (which sets BENCH_BIN, BENCH_STORE100K and BENCH_STATE10K). Prints
# name<TAB>seconds<TAB>peak RSS lines (MB/s over the store's bytes for the store rows).
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

bench_bin
for v in BENCH_STORE100K BENCH_STATE10K; do
	[ -n "${!v:-}" ] || { echo "stats.sh: $v is not set (run it through scripts/bench.sh)" >&2; exit 2; }
done
r=$BENCH_BIN
store=$BENCH_STORE100K/agents/main/sessions/sessions.json
bytes=$(bench_size "$store")
bench_note "stats: $store, $bytes bytes; $(find "$BENCH_STORE100K/agents" -type f | wc -l) files"
cat "$store" >/dev/null
bench_measure stats.store100k "$bytes" "$r" --no-progress stats --state-dir "$BENCH_STORE100K" --all-agents
bench_measure stats.store100k-json "$bytes" "$r" --no-progress --json stats --state-dir "$BENCH_STORE100K" --all-agents
if bench_need jq; then
	bench_measure stats.store100k.jq-length "$bytes" jq length "$store"
fi
if bench_need node nodejs; then
	bench_measure stats.store100k.node-load-write "$bytes" node -e \
		'const fs=require("fs");const s=fs.readFileSync(process.argv[1],"utf8");process.stdout.write(JSON.stringify(JSON.parse(s),null,2))' "$store"
fi
bench_measure_secs stats.state10k "$r" --no-progress stats --state-dir "$BENCH_STATE10K" --all-agents
bench_exit
