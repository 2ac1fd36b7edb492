#!/usr/bin/env bash
# scripts/conformance-ci.sh: the live differential .ci/run runs against the real OpenClaw, on
# fixed seeds, bounded in time (about 10 minutes for all engines on a 2-core machine once the
# releases are in the reference's cache; each first install takes about a minute). A reference
# that cannot be installed or run fails here with its own error, never a skip.
# Each engine owns its lines below; keep yours within its budget.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
rc=0

# repair (budget 5 min): the default release in depth, the older ones lighter.
scripts/conformance.sh repair --release 2026.7.35 --seed 101 --mutations 4000 --corpus-mutations 500 --all=false || rc=1
scripts/conformance.sh repair --release 2026.6.11 --seed 104 --mutations 1500 --corpus-mutations 0 --all=false || rc=1
scripts/conformance.sh repair --release 2026.4.24 --seed 102 --mutations 1500 --corpus-mutations 0 --all=false || rc=1
scripts/conformance.sh repair --release 2026.3.13 --seed 103 --mutations 1500 --corpus-mutations 0 --all=false || rc=1
# cleanup (budget 4 min): all 105 store runs (the corpus's stores under three configs, 60
# generated scenarios forcing every budget tier), the disk budget's figures included, against
# 2026.6.11 and 2026.7.35 (which prunes model-run probes first).
scripts/conformance.sh cleanup || rc=1
scripts/conformance.sh cleanup --release 2026.7.35 || rc=1
# replay and compaction (budget 4 min): seeds the goldens do not use; the default release with
# the corpus, the older ones on fixtures, probes and generated transcripts only.
for engine in replay compaction; do
	scripts/conformance.sh "$engine" --release 2026.7.35 --seed 201 --generated 50 --all=false || rc=1
	for r in 2026.6.11 2026.4.24 2026.3.13; do
		scripts/conformance.sh "$engine" --release "$r" --seed 202 --generated 30 --sets fixtures,reused,spellings,generated --all=false || rc=1
	done
done
# the repair part's matrix and byte-level mutations through replay and compaction (seed 203)
for engine in replay compaction; do
	scripts/conformance.sh "$engine" --release 2026.7.35 --seed 203 --sets matrix,mutations --matrix 1 --mutations 150 --all=false || rc=1
done
scripts/conformance.sh replay --reused || rc=1
scripts/conformance.sh replay --retry || rc=1
# fixtures: generated state dirs accepted by the real 2026.6.11 (all releases: run the test
# without -run's release part).
go test -tags conformance -count=1 -run 'TestFixturesAcceptedByOpenClaw/2026.6.11/(faults-all|demo)$' ./internal/conformance/ || rc=1

echo "conformance-ci: $(($(date +%s) - t0)) s"
exit $rc
