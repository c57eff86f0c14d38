#!/usr/bin/env bash
# Runs onyx's libFuzzer targets for a while each, from seed corpora built out of the ONNX
# backend suite (Debian's libonnx-testdata), and replays tests/fuzz/regressions first.
#
#   tests/fuzz/run_fuzzers.sh [--build DIR] [--seconds N] [--seed N] [--parallel] [--keep-going] [TARGET...]
#
# DIR is an ONYX_FUZZ build (default build-fuzz; tests/fuzz/README.md shows how to make one).
# Targets default to all three; --parallel runs them at the same time; --keep-going goes on
# after a finding (libFuzzer's fork mode) and collects every one. The corpus grown by a
# run stays in DIR/fuzz/corpus/<target> and is reused by the next run. A finding is written
# to DIR/fuzz/findings/<target>/ and makes the script fail; record it as a regression with
# `cp FILE tests/fuzz/regressions/<target>/` once it is fixed. --seed N fixes libFuzzer's
# random seed (and so the mutator's): the same build and corpus then try the same inputs in
# the same order, which is what CI wants (ctest passes --seed 1); without it every run draws
# a new seed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=build-fuzz
seconds=60
seed=
parallel=0
keep_going=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --parallel) parallel=1; shift ;;
    --keep-going) keep_going=1; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then targets=(load_fuzzer run_fuzzer value_reader_fuzzer checkpoint_fuzzer capi_value_fuzzer); fi
build=$(cd "$build" && pwd)
suite=/usr/share/libonnx-testdata/data

# Seeds: every backend-suite model for the model targets; for the reader target, the suite's
# small .pb files (first byte 1: read as TensorProto) and .npy files made from a few arrays
# (first byte 0). Made once per build folder.
seed_corpus() {
  local target=$1 dir=$build/fuzz/seeds/$1
  if [ -d "$dir" ]; then echo "$dir"; return; fi
  mkdir -p "$dir"
  case "$target" in
    load_fuzzer|run_fuzzer)
      find "$suite" -name model.onnx | while read -r f; do
        cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-16).onnx"
      done
      # And the models of onyx's own kernel cases for what that suite (onnx 1.12) lacks: the
      # ai.onnx.ml domain (tree ensembles, SVMs, encoders, ZipMap's maps), the narrow element
      # types and the LLM ops of opsets 23-24 (tests/kernels/gen_*.py, written here afresh).
      local cases; cases=$(mktemp -d)
      for gen in ml_trees ml_ops narrow_types llm_ops attention; do
        /usr/bin/python3 "$here/../kernels/gen_$gen.py" "$cases/$gen" >/dev/null 2>&1 ||
          echo "fuzz: gen_$gen.py failed; its models are not among the seeds" >&2
      done
      find "$cases" -name model.onnx | while read -r f; do
        cp "$f" "$dir/case_$(echo "${f#$cases}" | md5sum | cut -c1-16).onnx"
      done
      rm -rf "$cases" ;;
    value_reader_fuzzer)
      find "$suite" -name '*.pb' -size -64k | head -400 | while read -r f; do
        { printf '\001'; cat "$f"; } > "$dir/$(echo "$f" | md5sum | cut -c1-16).pb"
      done
      /usr/bin/python3 - "$dir" <<'PY'
import io, sys, numpy as np
arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.array([1, -2], dtype=np.int64),
          np.zeros((0, 4), dtype=np.uint8), np.array(3.5, dtype=np.float64), np.array([True, False])]
for k, a in enumerate(arrays):
    buf = io.BytesIO()
    np.save(buf, a)
    open(f"{sys.argv[1]}/npy_{k}.npy", "wb").write(b"\0" + buf.getvalue())
PY
      ;;
  esac
  echo "$dir"
}

run_one() {
  local target=$1
  local exe=$build/tests/fuzz/$target
  [ -x "$exe" ] || { echo "fuzz: $exe is missing: build $build with -DONYX_FUZZ=ON" >&2; return 2; }
  local corpus=$build/fuzz/corpus/$target findings=$build/fuzz/findings/$target
  mkdir -p "$corpus" "$findings"
  local seeds; seeds=$(seed_corpus "$target")
  echo "fuzz: $target for ${seconds}s (corpus $corpus)"
  # -rss_limit_mb: onyx's own caps (the run target's 256 MB arena) sit well under it, so
  # going past it is a finding. -timeout: one input taking longer than 30 s is a hang.
  # -report_slow_units at the same 30 s: libFuzzer's default (10 s) files legitimate heavy
  # inputs as findings (a Resize filling the 256 MB arena takes 0.4 s in a release build and
  # 14 s under ASan at -O1 on a busy machine); a hang is what the timeout catches.
  local rc=0 mode=()
  if [ $keep_going -eq 1 ]; then mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1); fi
  if [ -n "$seed" ]; then mode+=(-seed="$seed"); fi
  ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 \
    "$exe" "$corpus" "$seeds" "$here/regressions/$target" \
      -max_total_time="$seconds" -timeout=30 -report_slow_units=30 -rss_limit_mb=3072 -max_len=131072 \
      -artifact_prefix="$findings/" -print_final_stats=1 "${mode[@]}" \
      > "$build/fuzz/$target.log" 2>&1 || rc=$?
  grep -E "^stat::|Done [0-9]+ runs" "$build/fuzz/$target.log" | sed "s/^/fuzz: $target: /" || true
  grep -E "cov: [0-9]+" "$build/fuzz/$target.log" | tail -1 | sed "s/^/fuzz: $target: last: /" || true
  if [ -n "$(ls -A "$findings")" ]; then
    echo "fuzz: $target: findings: $(ls "$findings" | tr '\n' ' ')" >&2
    if [ $rc -eq 0 ]; then rc=1; fi
  fi
  if [ $rc -ne 0 ]; then
    echo "fuzz: $target FOUND A PROBLEM (exit $rc); log $build/fuzz/$target.log, input in $findings" >&2
    grep -E "ERROR|SUMMARY|==[0-9]+==" "$build/fuzz/$target.log" | head -20 >&2 || true
  fi
  return $rc
}

status=0
if [ $parallel -eq 1 ]; then
  pids=()
  for t in "${targets[@]}"; do run_one "$t" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
else
  for t in "${targets[@]}"; do run_one "$t" || status=1; done
fi
exit $status
