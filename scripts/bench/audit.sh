#!/usr/bin/env bash
# scripts/bench/audit.sh: throughput and peak RSS of `clawdoctor audit` over
#   1. one big transcript (BENCH_1G, 1 GiB by default): target >= 400 MB/s, peak RSS <= 256 MiB;
#   2. a state dir of 10,000 generated sessions with every fault kind, archives, locks and a
#      gateway log (BENCH_STATE10K, BENCH_GATEWAY_LOG);
# each next to a Node streaming baseline in the same run: readline + JSON.parse per line plus
# the same core checks (id index, dangling parents, tool call/result pairing), which is what an
# audit written in Node would at least do. For the big file also wc -l, jq -c . and the plain
# Node JSON.parse stream (bench_baselines).
#
#   scripts/bench/audit.sh [FILE [STATE_DIR]]
#
# Run by scripts/bench.sh (which sets BENCH_BIN, BENCH_1G, BENCH_STATE10K), or alone: the inputs
# are then generated once into $BENCH_TMP with `clawdoctor fixtures generate`
# (BENCH_SIZE, default 1GiB; BENCH_SESSIONS, default 10000).
# Prints name<TAB>MB/s<TAB>peak RSS lines (MB/s over the bytes read).
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

bench_bin

file=${1:-${BENCH_1G:-}}
if [ -z "$file" ]; then
	file=$(bench_transcript "$BENCH_TMP/in/audit-1g" 1 --size "${BENCH_SIZE:-1GiB}")
fi
state=${2:-${BENCH_STATE10K:-}}
if [ -z "$state" ]; then
	state="$BENCH_TMP/in/audit-state10k"
	if [ ! -f "$state/manifest.json" ]; then
		rm -rf "$state"
		bench_note "generating ${BENCH_SESSIONS:-10000} sessions into $state"
		"$BENCH_BIN" fixtures generate --out "$state" --agents 1 --sessions "${BENCH_SESSIONS:-10000}" \
			--size "${BENCH_STATE_SIZE:-400MiB}" --seed 3 --faults all --gateway-log >/dev/null || exit 4
	fi
fi
log=${BENCH_GATEWAY_LOG:-$(find "$state/logs" -name '*.log' 2>/dev/null | sort | head -n 1)}

# The Node baseline: the same streaming core checks an audit needs, per transcript.
BENCH_NODE_AUDIT="$BENCH_TMP/.node/audit.js"
mkdir -p "$BENCH_TMP/.node"
cat >"$BENCH_NODE_AUDIT" <<'JS'
// Baseline: a streaming audit in Node. For each transcript (a file, or every *.jsonl* under a
// dir): readline + JSON.parse per line, header check, id index, dangling parents, tool
// call/result pairing; prints counts on stderr.
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const CALL = new Set(['toolCall', 'toolUse', 'functionCall', 'tool_use', 'tool_call', 'function_call']);
function files(p) {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return [p];
  let out = [];
  for (const e of fs.readdirSync(p, { withFileTypes: true })) {
    const q = path.join(p, e.name);
    if (e.isDirectory()) out = out.concat(files(q));
    else if (/\.jsonl/.test(e.name) && !/trajectory|\.lock$/.test(e.name)) out.push(q);
  }
  return out;
}
const total = { files: 0, lines: 0, bad: 0, noHeader: 0, dangling: 0, unpaired: 0, orphan: 0 };
async function audit(f) {
  const rl = readline.createInterface({ input: fs.createReadStream(f, { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
  const ids = new Set(), parents = [], calls = new Map();
  let first = true;
  for await (const l of rl) {
    total.lines++;
    if (l.trim() === '') continue;
    let e;
    try { e = JSON.parse(l); } catch { total.bad++; continue; }
    if (first) { first = false; if (e.type !== 'session') total.noHeader++; if (e.type === 'session') continue; }
    if (e.id) ids.add(e.id);
    if (e.parentId) parents.push(e.parentId);
    const m = e.message;
    if (m && m.role === 'assistant' && Array.isArray(m.content)) {
      for (const b of m.content) if (b && CALL.has(b.type) && b.id) calls.set(b.id, 0);
    } else if (m && m.role === 'toolResult') {
      if (calls.has(m.toolCallId)) calls.set(m.toolCallId, calls.get(m.toolCallId) + 1); else total.orphan++;
    }
  }
  for (const p of parents) if (!ids.has(p)) total.dangling++;
  for (const n of calls.values()) if (n === 0) total.unpaired++;
  total.files++;
}
(async () => {
  for (const f of files(process.argv[2])) await audit(f);
  process.stderr.write(`node audit: ${JSON.stringify(total)}\n`);
})();
JS

run_node() { bench_need node nodejs && bench_measure "$1" "$2" node --max-old-space-size=4096 "$BENCH_NODE_AUDIT" "$3"; }

if [ -r "$file" ]; then
	bytes=$(bench_size "$file")
	bench_note "audit: $file, $bytes bytes, $(nproc) cores"
	cat "$file" >/dev/null # the page cache holds it for every run alike
	# exit 1 means "findings": a normal audit result
	bench_measure audit.1g "$bytes" "$BENCH_BIN" --no-progress audit "$file"
	bench_measure audit.1g-json "$bytes" "$BENCH_BIN" --no-progress --json audit "$file"
	run_node audit.1g.node-audit "$bytes" "$file"
	bench_baselines audit.1g "$file"
else
	bench_note "audit: no big transcript ($file)"
fi

if [ -d "$state" ]; then
	sbytes=$(du -sb "$state/agents" | cut -f1)
	nfiles=$(find "$state/agents" -type f | wc -l)
	bench_note "audit: state dir $state, $sbytes bytes in $nfiles files; log ${log:-none}"
	find "$state/agents" -type f -exec cat {} + >/dev/null
	logargs=()
	[ -n "$log" ] && logargs=(--logs "$log")
	bench_measure audit.state10k "$sbytes" "$BENCH_BIN" --no-progress audit "${logargs[@]}" "$state"
	bench_measure audit.state10k-sarif "$sbytes" "$BENCH_BIN" --no-progress audit --format sarif "${logargs[@]}" "$state"
	run_node audit.state10k.node-audit "$sbytes" "$state/agents"
else
	bench_note "audit: no state dir ($state)"
fi
bench_exit
