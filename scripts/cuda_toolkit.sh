#!/usr/bin/env bash
# Installs the CUDA toolkit onyx's CUDA provider builds against, from NVIDIA's wheels on PyPI at
# the versions requirements/cuda.txt pins, into a prefix outside the repository, and prints the
# toolkit root (bin/nvcc, include/, lib64/) for CMake:
#
#     root=$(scripts/cuda_toolkit.sh)
#     cmake ... -DONYX_CUDA=ON -DCUDAToolkit_ROOT="$root" -DCMAKE_CUDA_COMPILER="$root/bin/nvcc"
#
# The prefix is $ONYX_CUDA_PREFIX, else /opt/onyx/cuda-<hash of requirements/cuda.txt>; a prefix
# that is already complete is reused, so a second run downloads nothing. Needs pip (python3 -m pip)
# and ~1.3 GB of disk; no GPU and no driver.
set -euo pipefail
cd "$(dirname "$0")/.."
pins=requirements/cuda.txt
hash=$(grep -v '^#' "$pins" | sha256sum | cut -c1-12)
prefix=${ONYX_CUDA_PREFIX:-/opt/onyx/cuda-$hash}
root=$prefix/nvidia/cu13
stamp=$prefix/.onyx-complete
if [ ! -f "$stamp" ]; then
  echo "cuda_toolkit: installing $(grep -vc '^#' "$pins") NVIDIA wheels into $prefix" >&2
  rm -rf "$prefix" && mkdir -p "$prefix"
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check --no-deps \
    --no-compile --target "$prefix" -r "$pins" >&2
  # The wheels ship versioned libraries only, and cuDNN in a folder of its own; CMake's
  # FindCUDAToolkit and onyx's find_library(cudnn) look for unversioned names under the root,
  # and the provider opens cuDNN by its versioned name from the folder it was found in.
  ln -sf "$prefix"/nvidia/cudnn/lib/lib*.so.* "$root/lib/"
  for lib in "$root"/lib/lib*.so.*; do
    ln -sf "$(basename "$lib")" "$root/lib/$(basename "${lib%%.so.*}").so"
  done
  ln -sf "$prefix"/nvidia/cudnn/include/cudnn*.h "$root/include/"
  ln -sfn lib "$root/lib64"
  touch "$stamp"
fi
"$root/bin/nvcc" --version >/dev/null
echo "$root"
