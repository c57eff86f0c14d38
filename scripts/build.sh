#!/usr/bin/env bash
# Configures and builds onyx into build/ (or $ONYX_BUILD_DIR). Extra args go to CMake.
# When the Python module is built, also leaves .venv with onyx installed (scripts/venv.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${ONYX_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release} "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
if ls "$build_dir"/python/onyx/_onyx*.so >/dev/null 2>&1 && [ "$build_dir" = build ]; then
  scripts/venv.sh
fi
