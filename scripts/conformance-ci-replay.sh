#!/usr/bin/env bash
# scripts/conformance-ci-replay.sh: the live replay and compaction differential .ci/run runs
# against the real OpenClaw, on fixed seeds other than the goldens' (budget about 5 minutes on
# the 2-core machine: 2026.6.11 on the corpus, fixtures, reused-id probes and 100 generated
# transcripts; the older releases on fixtures, probes and 50 generated; then the reused-id and
# fallback-retry outcomes of every release). A reference that cannot be installed or run fails
# here with its own error, never a skip. The full runs (10,000 generated per release) are
# scripts/conformance.sh replay|compaction --release R.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
go build -o "${TMPDIR:-/tmp}/clawdoctor-conf-replay" ./conformance/cmd/replay
go build -o "${TMPDIR:-/tmp}/clawdoctor-conf-compaction" ./conformance/cmd/compaction
replay=${TMPDIR:-/tmp}/clawdoctor-conf-replay
compaction=${TMPDIR:-/tmp}/clawdoctor-conf-compaction
rc=0
for engine in replay compaction; do
	bin=$replay
	[ "$engine" = compaction ] && bin=$compaction
	"$bin" --release 2026.6.11 --seed 201 --generated 100 --all=false || rc=1
	for r in 2026.4.24 2026.3.13; do
		"$bin" --release "$r" --seed 202 --generated 50 --sets fixtures,reused,generated --all=false || rc=1
	done
done
"$replay" --reused || rc=1
"$replay" --retry || rc=1
echo "conformance-ci-replay: $(($(date +%s) - t0)) s"
exit $rc
