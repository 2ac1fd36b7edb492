#!/usr/bin/env bash
# scripts/conformance.sh: compare `clawdoctor cleanup` with the real OpenClaw CLI.
#
# Runs `openclaw sessions cleanup --dry-run --json` (../shared/tools/openclaw-reference, file-era
# release 2026.6.11) and retention's planner on the same copies of every corpus store (three
# configs each) and of 60 generated stores, at the same fixed time (faketime), and requires
# the summaries to be equal. Needs npm on the first run (the reference installs Node 24 and
# OpenClaw, about 1 GB) and faketime; plain `go test ./...` never runs this (build tag).
#
#   scripts/conformance.sh [-run REGEXP]        e.g. -run 'TestConformance/generated'
#   scripts/conformance.sh sqlite               SQLite era: the cleanup dry run against the real
#                                               2026.9.6 on 32 freshly generated and imported
#                                               databases (conformance/sqlite*.go, ~25 min)
# Env: OPENCLAW_REFERENCE (path of the reference tool), GOFLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v faketime >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq faketime >/dev/null
	else
		echo "conformance: faketime is needed (apt-get install -y faketime)" >&2
		exit 2
	fi
fi
if [ "${1:-}" = sqlite ]; then
	log=$(mktemp /tmp/clawdoctor-conformance-sqlite.XXXXXX.log)
	set +e
	go test -tags conformance -run 'TestSQLiteCleanup$' -parallel 2 -timeout 120m -v ./conformance/ >"$log" 2>&1
	rc=$?
	set -e
	grep -E -- '--- FAIL|summary differs' "$log" | head -50 || true
	pass=$(grep -cE -- '^ +--- PASS: TestSQLiteCleanup/cases/' "$log" || true)
	fail=$(grep -cE -- '^ +--- FAIL: TestSQLiteCleanup/cases/' "$log" || true)
	echo "conformance sqlite (2026.9.6): $pass passed, $fail failed (log $log)"
	exit $rc
fi
run=${2:-TestConformance}
[ "${1:-}" = "-run" ] || run=TestConformance
log=$(mktemp /tmp/clawdoctor-conformance.XXXXXX.log)
set +e
go test -tags conformance -run "$run" -parallel 2 -timeout 60m -v ./conformance/ >"$log" 2>&1
rc=$?
set -e
grep -E -- '--- FAIL|summary differs' "$log" | head -50 || true
pass=$(grep -cE -- '^ +--- PASS: TestConformance/(corpus|generated)/' "$log" || true)
fail=$(grep -cE -- '^ +--- FAIL: TestConformance/(corpus|generated)/' "$log" || true)
corpus=$(grep -cE -- '^ +--- PASS: TestConformance/corpus/' "$log" || true)
echo "conformance: $pass passed, $fail failed ($corpus corpus runs, $((pass - corpus)) generated; log $log)"
exit $rc
