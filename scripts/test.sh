#!/usr/bin/env bash
# Sets up, builds and runs every test: unit tests and the ONNX backend conformance suite.
# The CUDA provider is compiled too (it is code we ship; its tests skip themselves without a
# GPU), with the toolkit from PyPI (scripts/cuda_toolkit.sh); ONYX_CUDA=OFF scripts/test.sh skips it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
# -DONYX_TESTS/PYTHON=ON: a build folder the demo configured first (before GoogleTest and
# pybind11 were installed) has them off in its cache. The PyPI test venv's Python runs the
# tests against onnxruntime in process (tests/python_ort).
venv=$(scripts/test_venv.sh)
torch_venv=$(scripts/test_venv.sh --torch)
# pybind11 from that venv too: Debian's 2.10 misreads numpy 2's arrays, 2.13 serves numpy 1 and 2.
pybind11_dir=$("$venv/bin/python" -c 'import pybind11; print(pybind11.get_cmake_dir())')
ONYX_CUDA=${ONYX_CUDA:-ON} scripts/build.sh -DONYX_TESTS=ON -DONYX_PYTHON=ON -DONYX_TEST_VENV_PYTHON="$venv/bin/python" \
  -DONYX_TORCH_VENV_PYTHON="$torch_venv/bin/python" \
  -Dpybind11_DIR="$pybind11_dir" "$@"
cd "${ONYX_BUILD_DIR:-build}"
ctest --output-on-failure -j"$(nproc)"
