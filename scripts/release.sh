#!/usr/bin/env bash
# scripts/release.sh VERSION OUTDIR [-targets darwin/arm64,...] [-allow-dirty]: the release files
# of the checkout's HEAD for macOS (arm64, amd64), Linux (amd64, arm64) and Windows (amd64):
# OUTDIR/clawdoctor_<VERSION>_<os>_<arch>.tar.gz (.zip for Windows), OUTDIR/npm/*.tgz (the
# clawdoctor npm package and one per platform) and OUTDIR/SHA256SUMS. Reproducible: two runs on
# one commit give the same SHA256SUMS. Nothing is published. See scripts/release/main.go.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 2 ]] || { echo "usage: scripts/release.sh VERSION OUTDIR [-targets LIST] [-allow-dirty]" >&2; exit 2; }
version=$1 out=$2
shift 2
exec go run ./scripts/release "$@" "$version" "$out"
