#!/usr/bin/env bash
# Sets up, builds, and runs onyx's default model: a tiny edge-detecting image classifier
# (models/stripes.onnx) on a picture of vertical stripes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh                          # the build's Debian packages only
ONYX_BUILD_TARGETS=onyx scripts/build.sh >/dev/null   # the command line alone (no tests, no CUDA
                                          # unless ONYX_CUDA=ON or an NVIDIA driver is present)
build/onyx info models/stripes.onnx
echo
echo "onyx run models/stripes.onnx --input image=models/vertical.npy"
echo "(probabilities of: vertical stripes, horizontal stripes, flat)"
build/onyx run models/stripes.onnx --input image=models/vertical.npy
