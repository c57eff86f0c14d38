#!/usr/bin/env bash
# Configures and builds onyx into build/ (or $ONYX_BUILD_DIR). Extra args go to CMake;
# $ONYX_BUILD_TARGETS (space-separated) builds only those targets (scripts/demo.sh: onyx).
# When the Python module is built, also leaves .venv with onyx installed (scripts/venv.sh).
#
# The CUDA provider: $ONYX_CUDA=ON builds it, installing the pinned toolkit from PyPI first
# (scripts/cuda_toolkit.sh, cached outside the repository) unless /usr/local/cuda has one;
# OFF leaves it out; unset (AUTO) builds it only where a toolkit is installed under
# /usr/local/cuda or an NVIDIA driver is present (so a CPU-only machine pays nothing for CUDA).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${ONYX_BUILD_DIR:-build}
cuda=${ONYX_CUDA:-AUTO}
cuda_args=(-DONYX_CUDA="$cuda")
if [ "$cuda" = AUTO ] && [ ! -x /usr/local/cuda/bin/nvcc ] &&
   { [ -e /proc/driver/nvidia/version ] || ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; }; then
  cuda=ON  # a GPU driver and no toolkit: bring the toolkit
fi
if [ "$cuda" = ON ]; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    cuda_args=(-DONYX_CUDA=ON)
  else
    root=$(scripts/cuda_toolkit.sh)
    cuda_args=(-DONYX_CUDA=ON -DCUDAToolkit_ROOT="$root" -DCMAKE_CUDA_COMPILER="$root/bin/nvcc")
  fi
fi
. scripts/ccache_env.sh
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release} "${cuda_args[@]}" "${ccache_args[@]}" "$@" >/dev/null
targets=()
for t in ${ONYX_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j"$(nproc)" "${targets[@]}"
if ls "$build_dir"/python/onyx/_onyx*.so >/dev/null 2>&1 && [ "$build_dir" = build ]; then
  scripts/venv.sh
fi
