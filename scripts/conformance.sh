#!/usr/bin/env bash
# scripts/conformance.sh: run clawdoctor and the real OpenClaw on the same inputs and print, per
# input, "equal", a deliberate difference (docs/conformance.md lists each with its test) or the
# first difference, then a count line. Exit 0 when nothing differs.
#
#   scripts/conformance.sh ENGINE [--release R] [--seed N] [FLAGS...] [PATH...]
#
# ENGINE is repair, replay, compaction or cleanup. Without PATHs the inputs are every corpus
# transcript (../shared/corpus, or $CLAWDOCTOR_CORPUS), every fixture and fault kind, the
# provider × feature matrix and 10,000 seeded mutations (plus 2,000 of the corpus); with PATHs,
# only the transcripts (files or dirs) given, so anyone can check their own files. --release
# picks the OpenClaw release (default 2026.6.11; 2026.3.13 and 2026.4.24 are verified too). The
# reference (../shared/tools/openclaw-reference, or $OPENCLAW_REFERENCE) installs a release into
# its cache on first use (npm registry needed); if it cannot, the run fails saying so.
#
# Layout, one engine each: internal/conformance/oracle/<engine>.mjs is the Node driver and
# internal/conformance/cmd/<engine> the Go program comparing (harness.Main over a harness.Engine in
# internal/conformance/<engine>check); this script only dispatches. Flags of the Go program: --help.
# cleanup runs the store comparison of internal/conformance/conformance_test.go (build tag conformance):
# `openclaw sessions cleanup --dry-run --json` against retention's planner, with PATHs taken as
# sessions.json files or dirs holding them, and --run PATTERN for a subset of its runs.
# cleanup --release 2026.9.6 (or 2026.8.x; `sqlite` for short) is the SQLite era: the cleanup
# dry run against the real 2026.9.6 on 32 freshly generated and imported databases
# (internal/conformance/sqlite*.go, ~25 min).
# replay and compaction (internal/conformance/replaycheck) compare with OpenClaw's own replay pipeline
# and compaction decision: the corpus, the fixtures, two reused-id probes and --generated N
# (default 10,000) generated transcripts, or the PATHs; --golden re-records their offline
# goldens; `replay --reused` and `replay --retry` check reused tool-call ids and the fallback
# retry prompt in every verified release.
set -euo pipefail
cd "$(dirname "$0")/.."
# The reference goes through scripts/reference.sh, which makes 2026.3.x installable on a machine
# without GitHub access (an npm override); set OPENCLAW_REFERENCE to use another tool.
if [ -z "${OPENCLAW_REFERENCE:-}" ] && [ -x ../shared/tools/openclaw-reference ]; then
	export OPENCLAW_REFERENCE=$PWD/scripts/reference.sh
fi

usage() {
	echo "usage: scripts/conformance.sh repair|replay|compaction|cleanup|sqlite [--release R] [--seed N] [PATH...]" >&2
	exit 2
}

need_faketime() {
	command -v faketime >/dev/null 2>&1 && return 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq faketime >/dev/null 2>&1 ||
			{ apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq faketime >/dev/null; }
	fi
	command -v faketime >/dev/null 2>&1 || { echo "conformance: faketime is needed (apt-get install -y faketime)" >&2; exit 2; }
}

engine=${1:-}
[ -n "$engine" ] || usage
shift
if [ "$engine" = sqlite ]; then
	engine=cleanup
	set -- --release 2026.9.6 "$@"
fi

case $engine in
cleanup)
	release=2026.6.11
	run=TestConformance
	paths=()
	while [ $# -gt 0 ]; do
		case $1 in
		--release | --openclaw-version) release=$2; shift 2 ;;
		--release=* | --openclaw-version=*) release=${1#*=}; shift ;;
		--run) run=$2; shift 2 ;; # a go test -run pattern: a subset, e.g. TestConformance/generated/gen0
		--seed | --seed=*) echo "conformance: cleanup's generated stores are fixed; --seed ignored" >&2
			[ "$1" = --seed ] && shift; shift ;;
		-*) usage ;;
		*) paths+=("$1"); shift ;;
		esac
	done
	need_faketime
	case $release in
	2026.8.* | 2026.9.*)
		# The SQLite era: its own comparison (internal/conformance/sqlite*.go), its own count line.
		log=$(mktemp /tmp/clawdoctor-conformance-sqlite.XXXXXX.log)
		set +e
		go test -tags conformance -run 'TestSQLiteCleanup$' -parallel 2 -timeout 120m -v ./internal/conformance/ >"$log" 2>&1
		rc=$?
		set -e
		grep -E -- '--- FAIL|summary differs' "$log" | head -50 || true
		pass=$(grep -cE -- '^ +--- PASS: TestSQLiteCleanup/cases/' "$log" || true)
		fail=$(grep -cE -- '^ +--- FAIL: TestSQLiteCleanup/cases/' "$log" || true)
		echo "cleanup $release (SQLite era): $((pass + fail)) inputs, $pass equal, 0 deliberate, $fail differ, 0 failed (log $log)"
		exit $rc
		;;
	esac
	log=$(mktemp /tmp/clawdoctor-conformance-cleanup.XXXXXX.log)
	stores=""
	for p in "${paths[@]}"; do
		if [ -d "$p" ]; then
			stores+="$(find "$p" -name sessions.json -type f | sort | tr '\n' ' ')"
		else
			stores+="$p "
		fi
	done
	if [ ${#paths[@]} -gt 0 ] && [ -z "$stores" ]; then
		echo "conformance: no sessions.json in ${paths[*]}" >&2
		exit 2
	fi
	set +e
	OPENCLAW_REF_VERSION=$release CONFORMANCE_STORES=$stores \
		go test -tags conformance -run "$run" -parallel 2 -timeout 90m -v ./internal/conformance/ >"$log" 2>&1
	rc=$?
	set -e
	# One line per store run, then the count line, in the other engines' format.
	awk -v rel="$release" '
		/^ +--- (PASS|FAIL): TestConformance\/[^ ]+\/.+ \(/ {
			name = $3; sub(/^TestConformance\//, "", name)
			if ($2 == "PASS:") { print name ": equal"; eq++ } else { print name ": DIFFERS (" first[name] ")"; bad++ }
			next
		}
		/^=== (RUN|CONT|PAUSE)/ { cur = $3; sub(/^TestConformance\//, "", cur); next }
		/summary differs|reference:|ours:/ && cur != "" && !(cur in first) { line = $0; sub(/^ +/, "", line); first[cur] = substr(line, 1, 200) }
		END { printf "cleanup %s: %d inputs, %d equal, 0 deliberate, %d differ, 0 failed\n", rel, eq + bad, eq, bad }
	' "$log"
	if [ $rc -ne 0 ] && ! grep -q -- '--- FAIL: TestConformance/' "$log"; then
		tail -20 "$log" >&2 # the reference could not be installed or run: say why
	fi
	echo "conformance: log $log" >&2
	exit $rc
	;;
repair | replay | compaction)
	if [ ! -d "internal/conformance/cmd/$engine" ]; then
		echo "conformance: the $engine engine has no comparison yet (internal/conformance/cmd/$engine)" >&2
		exit 2
	fi
	exec go run "./internal/conformance/cmd/$engine" "$@"
	;;
*) usage ;;
esac
