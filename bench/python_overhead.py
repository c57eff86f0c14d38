#!/usr/bin/python3
"""Per-call overhead of the Python API over the C++ call (issue 4's benchmark).

Times a tiny model (Add of two float [1, 8] tensors, opset 17) through
`onyx bench MODEL --threads 1` (the C++ Session::run) and through the Python package
(InferenceSession.run with numpy feeds, run_with_ort_values, run_with_iobinding), and prints
the median microseconds per call of each and the Python overhead (Python median minus C++
median). Run from the repository root after scripts/build.sh:

    /usr/bin/python3 bench/python_overhead.py [--onyx build/onyx] [--runs 20000]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tiny_add_model():
    info = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 8]) for n in ("a", "b", "c")]
    graph = helper.make_graph([helper.make_node("Add", ["a", "b"], ["c"])], "tiny_add", info[:2], info[2:])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def median_us(call, runs, warmup):
    for _ in range(warmup):
        call()
    times = []
    clock = time.perf_counter_ns
    for _ in range(runs):
        t0 = clock()
        call()
        times.append(clock() - t0)
    return statistics.median(times) / 1000.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onyx", default=os.path.join(ROOT, "build", "onyx"))
    parser.add_argument("--runs", type=int, default=20000)
    parser.add_argument("--warmup", type=int, default=500)
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(args.onyx)), "python"))
    import onyx

    model = tiny_add_model()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tiny_add.onnx")
        with open(path, "wb") as f:
            f.write(model)
        out = os.path.join(tmp, "bench.json")
        subprocess.run([args.onyx, "bench", path, "--threads", "1", "--runs", str(args.runs), "--warmup",
                        str(args.warmup), "--json", out], check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            cpp_us = json.load(f)["median_ms"] * 1000.0

    opts = onyx.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = onyx.InferenceSession(model, opts)
    a = np.random.rand(1, 8).astype(np.float32)
    b = np.random.rand(1, 8).astype(np.float32)
    feeds = {"a": a, "b": b}
    ort_feeds = {k: onyx.OrtValue.ortvalue_from_numpy(v) for k, v in feeds.items()}
    binding = sess.io_binding()
    binding.bind_cpu_input("a", a)
    binding.bind_cpu_input("b", b)
    c = np.empty((1, 8), np.float32)
    binding.bind_output("c", "cpu", 0, np.float32, [1, 8], c.ctypes.data)

    rows = [("C++ Session::run (onyx bench)", cpp_us)]
    rows.append(("InferenceSession.run (numpy)", median_us(lambda: sess.run(None, feeds), args.runs, args.warmup)))
    rows.append(("run_with_ort_values", median_us(lambda: sess.run_with_ort_values(None, ort_feeds), args.runs,
                                                  args.warmup)))
    rows.append(("run_with_iobinding", median_us(lambda: sess.run_with_iobinding(binding), args.runs, args.warmup)))
    print(f"tiny Add [1,8] float32, 1 thread, median of {args.runs} calls")
    print(f"{'path':<34} {'us/call':>8} {'overhead us':>12}")
    for name, us in rows:
        print(f"{name:<34} {us:8.2f} {us - cpp_us:12.2f}")


if __name__ == "__main__":
    main()
