#!/usr/bin/env bash
# ThreadSanitizer check of onyx's concurrency (issue #7): builds the unit tests with clang and
# -fsanitize=thread into build-tsan (or $ONYX_TSAN_BUILD_DIR) and runs the tests that share
# one session between threads: 8 threads x 1,000 mixed-shape runs, sessions created and
# destroyed concurrently, terminate from another thread, IO bindings per thread, recorded runs
# replayed from several threads (a simulated device).
#
#   scripts/tsan.sh [GTEST_FILTER]
#
# onyx's own OpenMP loops compile serially under clang (CMakeLists.txt: -fopenmp=libgomp),
# and OMP_NUM_THREADS=1 keeps oneDNN, which TSan cannot see into, on the calling thread: what
# is checked is onyx's sharing of sessions, arenas, caches and registries between threads.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --sanitizers
build_dir=${ONYX_TSAN_BUILD_DIR:-build-tsan}
filter=${1:-'Concurrency*:RunOptions*:IoBinding*:HostileModel.Loop*:RecordedRun*'}
. scripts/ccache_env.sh
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${ccache_args[@]}" \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" \
  -DONYX_TSAN=ON -DONYX_TESTS=ON -DONYX_PYTHON=OFF -DONYX_CUDA=OFF >/dev/null
cmake --build "$build_dir" -j"$(nproc)" --target onyx_tests
OMP_NUM_THREADS=1 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  "$build_dir/tests/onyx_tests" --gtest_filter="$filter"
