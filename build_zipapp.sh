#!/usr/bin/env bash
# Build Boris as one self-contained zipapp (shiv).
#
#   ./build_zipapp.sh                 dist/boris.pyz for this machine and this Python
#   ./build_zipapp.sh <os>-<arch>     dist/boris-<os>-<arch>-py3.11.pyz from binary wheels for
#                                     linux-x86_64, linux-aarch64, darwin-x86_64 or darwin-arm64
#   ./build_zipapp.sh all             the four targets and dist/SHA256SUMS
#
# A pyz carries native extensions (pydantic-core, google-re2, ...), so it runs on one OS,
# one architecture and one Python minor version. Per-target builds fail if any wheel is
# missing for the target, and every native binary inside is checked for its architecture.
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}
SHIV_VERSION=1.0.8
TARGETS=(linux-x86_64 linux-aarch64 darwin-x86_64 darwin-arm64)

# pip takes wheel platform tags literally for manylinux, so list every glibc baseline the
# pinned wheels use (google-re2 ships 2_28, others 2_17). Never mix in musllinux tags.
platform_tags() {
  case "$1" in
    linux-x86_64)  echo manylinux_2_28_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64 ;;
    linux-aarch64) echo manylinux_2_28_aarch64 manylinux_2_17_aarch64 manylinux2014_aarch64 ;;
    # google-re2's current wheels need macOS 13 (x86_64) / 14 (arm64); with an older tag pip
    # would quietly fall back to an old google-re2.
    darwin-x86_64) echo macosx_13_0_x86_64 ;;
    darwin-arm64)  echo macosx_14_0_arm64 ;;
    *) echo "unknown target '$1'; use one of: ${TARGETS[*]} all" >&2; return 1 ;;
  esac
}

shiv_cmd() {
  if "$PYTHON" -c "import shiv" 2>/dev/null; then
    echo "$PYTHON -m shiv"
  else
    local venv=build/shiv-venv
    [ -x "$venv/bin/shiv" ] || {
      "$PYTHON" -m venv "$venv"
      "$venv/bin/pip" install --quiet "shiv==$SHIV_VERSION"
    }
    echo "$venv/bin/shiv"
  fi
}

zipapp() {  # <site-packages dir> <output> <interpreter python3.X>
  $(shiv_cmd) --site-packages "$1" -e boris.__main__:main -o "$2" \
    -p "/usr/bin/env $3" --reproducible --compressed
  # Bytecode can only be made by the interpreter version the pyz targets.
  if [ "$("$PYTHON" -c 'import sys; print(f"python{sys.version_info[0]}.{sys.version_info[1]}")')" = "$3" ]; then
    "$PYTHON" scripts/add_pycs.py "$1" "$2"
  fi
}

build_native() {
  local site=build/site-native version
  version=$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  rm -rf "$site"
  "$PYTHON" -m pip install --quiet --no-compile --target "$site" .
  mkdir -p dist
  zipapp "$site" dist/boris.pyz "python$version"
  echo "built dist/boris.pyz (Python $version, $(uname -s)-$(uname -m))"
}

build_target() {
  local target=$1 site=build/site-$1 out=dist/boris-$1-py3.11.pyz tags=() tag
  for tag in $(platform_tags "$target"); do tags+=(--platform "$tag"); done
  rm -rf "$site" build/wheel
  # Boris itself is pure Python: build its wheel here, take everything else as binary
  # wheels for the target (pip refuses, loudly, when one is missing).
  "$PYTHON" -m pip wheel --quiet --no-deps --wheel-dir build/wheel .
  "$PYTHON" -m pip install --quiet --no-compile --target "$site" \
    --only-binary=:all: --python-version 3.11 --implementation cp --abi cp311 "${tags[@]}" \
    build/wheel/boris-*.whl
  mkdir -p dist
  zipapp "$site" "$out" python3.11
  "$PYTHON" scripts/check_pyz_arch.py "$out" "$target" >/dev/null
  echo "built $out"
}

case "${1:-}" in
  "") build_native ;;
  all)
    for target in "${TARGETS[@]}"; do build_target "$target"; done
    (cd dist && sha256sum boris-*-py3.11.pyz > SHA256SUMS)
    echo "wrote dist/SHA256SUMS"
    ;;
  *) platform_tags "$1" >/dev/null && build_target "$1" ;;
esac
