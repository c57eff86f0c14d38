#!/usr/bin/env bash
# Sets up, builds and runs every test: unit tests and the ONNX backend conformance suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh "$@"
cd "${ONYX_BUILD_DIR:-build}"
ctest --output-on-failure -j"$(nproc)"
