#!/usr/bin/env bash
# Build Boris as self-contained zipapps (shiv) that run under any CPython 3.10-3.14, as
# MCP Bundles for Claude Desktop, and as a wheel.
#
#   ./build_zipapp.sh                 dist/boris-<os>-<arch>.pyz for this machine, and
#                                     dist/boris-<os>-<arch>.mcpb, a bundle around it
#   ./build_zipapp.sh <os>-<arch>     dist/boris-<os>-<arch>.pyz for linux-x86_64,
#                                     linux-aarch64, darwin-x86_64 or darwin-arm64
#   ./build_zipapp.sh all             the four, dist/boris.pyz (all four in one file),
#                                     dist/boris.mcpb (the bundle around boris.pyz)
#                                     and dist/SHA256SUMS
#
# Each also writes Boris's wheel, dist/boris-<version>-py3-none-any.whl (its console
# script `boris` runs the server). A bundle's manifest lists the tools its pyz serves, so
# the pyz is started here once (scripts/build_bundle.py): bundles are made only of a pyz
# this machine runs.
#
# A pyz carries the native extensions (pydantic-core, google-re2, ...) of its platform
# once for each Python 3.10-3.14, and picks the set of the interpreter it runs under
# (scripts/build_pyz.py, scripts/pyz_start.py). The builds fail if any wheel is missing
# for a target, and every native binary inside is checked for its architecture.
# Needs the package index (or uv's cache); PYTHON (default python3, 3.10+) runs the build,
# with the uv and shiv installed beside it, on PATH, or else into build/pyz/tools by pip.
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}
TARGETS=(linux-x86_64 linux-aarch64 darwin-x86_64 darwin-arm64)

native_target() {
  local os arch
  os=$(uname -s | tr '[:upper:]' '[:lower:]')
  arch=$(uname -m)
  case "$arch" in
    amd64) arch=x86_64 ;;
    arm64) [ "$os" = linux ] && arch=aarch64 ;;
    aarch64) [ "$os" = darwin ] && arch=arm64 ;;
  esac
  echo "$os-$arch"
}

check() {  # <pyz> [target]: every native binary inside fits its platform
  "$PYTHON" scripts/check_pyz_arch.py "$@" >/dev/null
}

case "${1:-}" in
  "")
    target=$(native_target)
    "$PYTHON" scripts/build_pyz.py "$target"
    check "dist/boris-$target.pyz" "$target"
    "$PYTHON" scripts/build_bundle.py "dist/boris-$target.pyz" "dist/boris-$target.mcpb"
    ;;
  all)
    "$PYTHON" scripts/build_pyz.py --universal "${TARGETS[@]}"
    for target in "${TARGETS[@]}"; do check "dist/boris-$target.pyz" "$target"; done
    check dist/boris.pyz
    "$PYTHON" scripts/build_bundle.py dist/boris.pyz dist/boris.mcpb
    files=(boris.pyz boris.mcpb)
    for target in "${TARGETS[@]}"; do files+=("boris-$target.pyz"); done
    files+=("$(cd dist && ls boris-*-py3-none-any.whl)")
    (cd dist && sha256sum "${files[@]}" > SHA256SUMS)
    echo "wrote dist/SHA256SUMS"
    ;;
  linux-x86_64 | linux-aarch64 | darwin-x86_64 | darwin-arm64)
    "$PYTHON" scripts/build_pyz.py "$1"
    check "dist/boris-$1.pyz" "$1"
    ;;
  *)
    echo "unknown target '$1'; use one of: ${TARGETS[*]} all" >&2
    exit 2
    ;;
esac
