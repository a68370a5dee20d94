#!/usr/bin/env bash
# Anthropic's MCP Bundle CLI (npm's @anthropic-ai/mcpb), at the version pinned here, run with
# the arguments given:
#
#   scripts/mcpb.sh validate path/to/manifest.json
#
# On first use npm installs it into build/mcpb of this checkout (never globally), within
# a time bound. Exits 127, saying why on stderr, when npm is missing or the install fails;
# otherwise with the CLI's own status.
set -euo pipefail

VERSION=2.1.2
REPO=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=$REPO/build/mcpb
PACKAGE=$PREFIX/node_modules/@anthropic-ai/mcpb/package.json

installed_version() {
  [ -f "$PACKAGE" ] && node -p "require(process.argv[1]).version" "$PACKAGE" 2>/dev/null
}

if [ "$(installed_version || true)" != "$VERSION" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "mcpb.sh: npm not found; install Node.js and npm to run @anthropic-ai/mcpb" >&2
    exit 127
  fi
  mkdir -p "$PREFIX"
  if ! timeout 300 npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error \
      "@anthropic-ai/mcpb@$VERSION" </dev/null >&2; then
    echo "mcpb.sh: could not install @anthropic-ai/mcpb@$VERSION from npm" >&2
    exit 127
  fi
fi

exec node "$PREFIX/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js" "$@"
