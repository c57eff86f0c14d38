#!/usr/bin/env bash
# Per-call overhead through onnxruntime-node, ORT's library against onyx's, side by side
# (issue 24: within 2 us of ORT's on a tiny model). Alternates the two libraries `rounds` times
# (default 3) on y = x + x (float32 [4]) and prints each measurement and the medians.
# Needs tests/node installed (scripts/setup.sh) and a build with libonnxruntime.so.1.
#
#     bench/node_overhead.sh [build dir=build] [rounds=3]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rounds=${2:-3}
model=$(mktemp --suffix=.onnx)
trap 'rm -f "$model"' EXIT
/usr/bin/python3 - "$model" <<'PY'
import sys
from onnx import TensorProto, helper
g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["y"])], "tiny",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
open(sys.argv[1], "wb").write(m.SerializeToString())
PY
ort=(); onyx=()
for r in $(seq "$rounds"); do
  a=$(node bench/node_overhead.js "$model")
  b=$(LD_LIBRARY_PATH="$build" node bench/node_overhead.js "$model")
  echo "ORT:  $a"; echo "onyx: $b"
  ort+=("$(echo "$a" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["median_us"])')")
  onyx+=("$(echo "$b" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["median_us"])')")
done
/usr/bin/python3 - "${ort[*]}" "${onyx[*]}" <<'PY'
import statistics, sys
ort = [float(v) for v in sys.argv[1].split()]
onyx = [float(v) for v in sys.argv[2].split()]
o, n = statistics.median(ort), statistics.median(onyx)
print(f"median per run: ORT {o:.2f} us, onyx {n:.2f} us, onyx - ORT {n - o:+.2f} us")
PY
