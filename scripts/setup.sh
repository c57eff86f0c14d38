#!/usr/bin/env bash
# Installs what onyx needs to build (no argument), to test (--tests) or to run the sanitizer
# stage (--sanitizers), when it is missing: Debian's packages and, for --tests, the npm and
# PyPI test dependencies (scripts/test_venv.sh). Idempotent and non-interactive; needs root
# (or sudo) only when a Debian package is missing.
set -euo pipefail

# What building onyx needs (scripts/demo.sh installs only these).
# ocl-icd-opencl-dev: Debian's oneDNN CMake config looks for OpenCL (a Recommends of
# libdnnl-dev, which --no-install-recommends skips). libre2-dev: RE2, the regular expressions
# of RegexFullMatch (found through pkg-config; pkgconf provides it).
packages=(
  build-essential cmake ninja-build ccache pkgconf
  libprotobuf-dev protobuf-compiler libonnx-dev libdnnl-dev ocl-icd-opencl-dev libre2-dev
  # ImageDecoder's codecs (optional to the build: a missing one leaves that format out).
  libjpeg62-turbo-dev libpng-dev libwebp-dev libopenjp2-7-dev libtiff-dev
)
# --tests: also what the tests need (scripts/test.sh); --sanitizers: that and clang with its
# runtimes (libFuzzer, ASan, UBSan, TSan), for scripts/sanitize.sh.
if [ "${1:-}" = "--tests" ] || [ "${1:-}" = "--sanitizers" ]; then
  packages+=(
    libgtest-dev libgmock-dev libbenchmark-dev
    libonnx-testdata
    python3-numpy python3-onnx python3-pytest pybind11-dev python3-dev python3-venv
    # The training tests compare with PyTorch; without OpenBLAS Debian's torch falls back to the
    # reference BLAS (about 14x slower).
    python3-torch python3-torchvision libopenblas0
    # Property-based fuzzing of the checkpoint and adapter readers (tests/python/test_reader_fuzz.py).
    python3-hypothesis
    # ORT's StringNormalizer (the reference in tests/python_ort) builds the C++ locale its
    # 'locale' attribute names, en_US for skl2onnx's text pipelines: localedef compiles it below.
    locales
  )
fi
if [ "${1:-}" = "--sanitizers" ]; then
  # libomp-14-dev: omp.h where clang looks (the build links GCC's libgomp all the same).
  packages+=(clang libclang-rt-14-dev llvm-14 libomp-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[ "${1:-}" = "--tests" ] || exit 0
if ! locale -a 2>/dev/null | grep -qix 'en_US.utf8'; then
  echo "setup: compiling the en_US.UTF-8 locale"
  "${sudo_cmd[@]}" localedef -i en_US -f UTF-8 en_US.UTF-8
fi
root="$(cd "$(dirname "$0")/.." && pwd)"

# onnxruntime-node 1.30 for the node_binding test (tests/node: the binding, unmodified, on onyx's
# libonnxruntime.so.1), from the npm registry at the version package-lock.json pins; its install
# script (GPU downloads) is not run. Without node the test is not defined.
node_dir="$root/tests/node"
if command -v npm >/dev/null 2>&1 && [ ! -d "$node_dir/node_modules/onnxruntime-node" ]; then
  echo "setup: installing onnxruntime-node into tests/node"
  (cd "$node_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) ||
    echo "setup: npm ci failed in tests/node; the node_binding test will say so"
fi

# github.com/yalue/onnxruntime_go for the go_binding test (tests/go: go.mod and go.sum pin it),
# into the Go module cache from the Go module proxy. Without go the test is not defined.
go_dir="$root/tests/go"
if command -v go >/dev/null 2>&1; then
  (cd "$go_dir" && go mod download) || echo "setup: go mod download failed in tests/go; the go_binding test will say so"
fi

# The Rust `ort` crate and its few dependencies for the rust_binding test (tests/rust: Cargo.toml
# and Cargo.lock pin them), into cargo's cache from crates.io. Without cargo the test is not defined.
rust_dir="$root/tests/rust"
cargo=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
if [ -x "$cargo" ]; then
  "$cargo" fetch --locked --manifest-path "$rust_dir/Cargo.toml" ||
    echo "setup: cargo fetch failed in tests/rust; the rust_binding test will say so"
fi

# ORT's Java binding, JUnit and Maven's plugins for the java_binding test (tests/java/pom.xml pins
# them), into ~/.m2 from Maven Central, so the test runs offline. Without mvn the test is not defined.
java_dir="$root/tests/java"
if command -v mvn >/dev/null 2>&1; then
  mvn -B -ntp -q -f "$java_dir/pom.xml" -Donyx.java.build="${TMPDIR:-/tmp}/onyx-java-prefetch" \
    test -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false >/dev/null ||
    echo "setup: mvn could not fetch tests/java's dependencies; the java_binding test will say so"
fi

# PyPI's test dependencies (onnxruntime 1.30.0 in process, current onnx, the converters) in a
# cached virtual environment outside the repository.
"$root/scripts/test_venv.sh" >/dev/null
"$root/scripts/test_venv.sh" --torch >/dev/null  # and torch 2.x beside it (~3 GB, once)
