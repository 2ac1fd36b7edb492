#!/usr/bin/env bash
# scripts/bench/sqlite.sh: `clawdoctor audit` of a SQLite-era agent database holding
# BENCH_SIZE (default 1 GiB) of transcript events, beside the audit of the same sessions as
# JSONL files in the same run. Target: >= 300 MB/s over the event bytes, bounded memory.
#
#   scripts/bench/sqlite.sh
#
# The inputs come from `clawdoctor fixtures generate --sqlite-out`: 100 generated sessions as
# JSONL, and the same sessions as events of a database with the real 2026.9.6 schema (large
# events zstd-compressed in event_zstd, as OpenClaw stores them). Also: export of the whole
# database (JSONL out) and validate of it. Prints name<TAB>MB/s<TAB>peak RSS lines; MB/s is
# over the transcript bytes for all of them.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

bench_bin

# -v2: since 2026-12-06 the generated database has the real import's identity rows and zstd
# rule (an older one in BENCH_TMP lacks them and measured a cheaper audit): regenerated
jsonl="$BENCH_TMP/in/sqlite-jsonl-v2"
db_state="$BENCH_TMP/in/sqlite-db-v2"
if [ ! -f "$jsonl/manifest.json" ] || [ ! -f "$db_state/agents/main/agent/openclaw-agent.sqlite" ]; then
	rm -rf "$jsonl" "$db_state"
	mkdir -p "$BENCH_TMP/in"
	bench_note "generating ${BENCH_SIZE:-1GiB} in 100 sessions into $jsonl and $db_state"
	bench_measure generate.sqlite - "$BENCH_BIN" fixtures generate --out "$jsonl" --sqlite-out "$db_state" \
		--agents 1 --sessions 100 --size "${BENCH_SIZE:-1GiB}" --seed 9 --faults none || exit 4
fi
db="$db_state/agents/main/agent/openclaw-agent.sqlite"
bytes=$(sed -n 's/^  "total_bytes": \([0-9]*\).*/\1/p' "$jsonl/manifest.json")
bench_note "sqlite: $bytes transcript bytes; database $(bench_size "$db") bytes; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$db" >/dev/null
find "$jsonl/agents" -type f -exec cat {} + >/dev/null # the page cache holds both alike

# exit 1 means "findings": a normal audit result
bench_measure audit.sqlite-db "$bytes" "$BENCH_BIN" --no-progress audit "$db"
bench_measure audit.sqlite-same-jsonl "$bytes" "$BENCH_BIN" --no-progress audit "$jsonl/agents/main/sessions"
bench_measure audit.sqlite-db-again "$bytes" "$BENCH_BIN" --no-progress audit "$db"
bench_measure validate.sqlite-db "$bytes" "$BENCH_BIN" --no-progress validate "$db"
rm -rf "$BENCH_TMP/sqlite-export"
bench_measure export.sqlite-db "$bytes" "$BENCH_BIN" --no-progress --state-dir "$db_state" export --out "$BENCH_TMP/sqlite-export"
bench_measure copy.sqlite-db-file "$(bench_size "$db")" cp "$db" "$BENCH_TMP/sqlite-copy.sqlite"
rm -rf "$BENCH_TMP/sqlite-export" "$BENCH_TMP/sqlite-copy.sqlite"
bench_exit
