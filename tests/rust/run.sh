#!/bin/bash
# Builds tests/rust (the Rust `ort` crate, unmodified, with `load-dynamic`) and runs it on onyx's
# libonnxruntime.so.1: the ctest test rust_binding.
#
#     tests/rust/run.sh ONYX_LIBRARY_DIR STRIPES_MODEL ALL_TYPES_MODEL BUILD_DIR
#
# Cargo builds into BUILD_DIR/rust-target, out of the source tree, from the committed Cargo.lock
# (--locked). The crates come from cargo's cache in ~/.cargo when they are there (--offline), and
# from crates.io otherwise. ORT_DYLIB_PATH names onyx's library, which the crate opens at run time.
# ONYX_CARGO names the cargo to use (default: cargo on PATH); ONYX_RUST_JOBS its jobs (default 2).
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 ONYX_LIBRARY_DIR STRIPES_MODEL ALL_TYPES_MODEL BUILD_DIR" >&2
  exit 2
fi
lib_dir=$(cd "$1" && pwd)
stripes=$2
all_types=$3
build_dir=$(cd "$4" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

export CARGO_TARGET_DIR="$build_dir/rust-target"
jobs=${ONYX_RUST_JOBS:-2}
cargo=${ONYX_CARGO:-cargo}
if ! command -v "$cargo" >/dev/null 2>&1; then
  echo "cargo not found (ONYX_CARGO=${ONYX_CARGO:-}): the rust_binding test needs a Rust toolchain" >&2
  exit 1
fi
build() { "$cargo" build --manifest-path "$here/Cargo.toml" --release --locked -j "$jobs" "$@"; }
offline_log="$CARGO_TARGET_DIR.offline.log"
if ! build --offline 2>"$offline_log"; then
  echo "(the offline build failed, crates missing from cargo's cache most likely: see $offline_log;"
  echo " building again with crates.io)"
  build
fi

export ORT_DYLIB_PATH="$lib_dir/libonnxruntime.so.1"
exec "$CARGO_TARGET_DIR/release/onyx_ort_binding_test" "$lib_dir" "$stripes" "$all_types"
