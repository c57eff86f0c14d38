#!/usr/bin/env bash
# Configures and builds onyx into build/ (or $ONYX_BUILD_DIR). Extra args go to CMake.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${ONYX_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release} "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
