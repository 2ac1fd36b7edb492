#!/usr/bin/env bash
# scripts/conformance-record.sh [ENGINE...]: record again the real OpenClaw's answers that the
# offline tests compare against (internal/conformance/<engine>check/testdata/oracle-<release>.jsonl.zst),
# for every verified release, on the golden inputs (harness.GoldenSets: fixtures, fault kinds,
# one matrix round, 300 mutations of seed 1; never the private corpus). Run it after changing
# an input generator or a driver, review the counts it prints, commit the files.
# replay and compaction record under internal/conformance/replaycheck/testdata/<release>/ (their golden
# sets hold the corpus too, as digests, text-free shapes and entry ids only: docs/conformance.md).
# Default engines: every internal/conformance/cmd/<engine> with an internal/conformance/<engine>check package, and
# replay and compaction. `cleanup` (named) records internal/conformance/testdata/cleanup/.
set -euo pipefail
cd "$(dirname "$0")/.."
releases=${CONFORMANCE_RELEASES:-"2026.3.13 2026.4.24 2026.6.11 2026.7.35"}
engines=("$@")
if [ ${#engines[@]} -eq 0 ]; then
	for d in internal/conformance/cmd/*/; do
		e=$(basename "$d")
		# replay and compaction share internal/conformance/replaycheck
		[ -d "internal/conformance/${e}check" ] || [ "$e" = replay ] || [ "$e" = compaction ] && engines+=("$e")
	done
fi
rc=0
for e in "${engines[@]}"; do
	if [ "$e" = cleanup ]; then
		# cleanup: OpenClaw 2026.6.11's and 2026.7.35's summaries of the generated scenarios
		# (internal/conformance/testdata/cleanup/), compared offline by TestCleanupRecordedOracle
		for r in 2026.6.11 2026.7.35; do
			OPENCLAW_REF_VERSION=$r CONFORMANCE_RECORD=cleanup go test -tags conformance -count=1 -run TestRecordCleanupOracle \
				-timeout 30m ./internal/conformance/ || rc=1
		done
		continue
	fi
	for r in $releases; do
		go run "./internal/conformance/cmd/$e" --golden --release "$r" --all=false || rc=1
	done
done
# replay's release-independent outcomes (every release in one run)
for e in "${engines[@]}"; do
	if [ "$e" = replay ]; then
		go run ./internal/conformance/cmd/replay --reused --golden >/dev/null || rc=1
		go run ./internal/conformance/cmd/replay --retry --golden || rc=1
	fi
done
exit $rc
