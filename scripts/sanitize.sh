#!/usr/bin/env bash
# The sanitizer and fuzzing check (issue #7): builds onyx with clang, AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer instrumentation into build-fuzz (or
# $ONYX_FUZZ_BUILD_DIR), then runs there: the unit and pass tests, the generated kernel
# cases, a slice of the ONNX backend suite (the ops with the most index arithmetic), the
# recorded fuzz findings (tests/fuzz/regressions) and each fuzz target for
# $ONYX_FUZZ_SECONDS seconds (default 60). About 19 minutes on 2 cores from clean (11 of them the build).
#
#   scripts/sanitize.sh                 # everything above
#   ONYX_FUZZ_SECONDS=3600 tests/fuzz/run_fuzzers.sh --parallel   # longer fuzzing, same build
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --sanitizers
build_dir=${ONYX_FUZZ_BUILD_DIR:-build-fuzz}
# The slice of the backend suite run under the sanitizers (substrings of case ids).
slice="conv pool gather scatter slice pad resize loop scan _if sequence split concat nonzero topk
       einsum lstm gru rnn roi nonmax unique cumsum tile expand reshape transpose onehot depth
       matmul gemm reduce softmax layer_norm attention dft stft col2im center_crop string
       quantize grid_sample"
. scripts/ccache_env.sh
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${ccache_args[@]}" \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" \
  -DONYX_FUZZ=ON -DONYX_TESTS=ON -DONYX_PYTHON=OFF -DONYX_CUDA=OFF \
  -DONYX_FUZZ_SECONDS="${ONYX_FUZZ_SECONDS:-60}" -DONYX_CONFORMANCE_FILTERS="$(echo $slice)" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
cd "$build_dir"
export UBSAN_OPTIONS=print_stacktrace=1
ctest --output-on-failure -j"$(nproc)"
