#!/usr/bin/env python3
"""ONNX Runtime's side of the peer comparison from Python: the `onnxruntime` wheel (the test
venv's 1.30.0, scripts/test_venv.sh, or any other version a venv has, e.g. the newest release),
with the same arguments and the same JSON as bench/run_ort.js, so bench/compare.py takes either
(--ort-runner node|python).

    <venv>/bin/python bench/run_ort.py MODEL --threads N --runs N --warmup N --inputs-dir DIR
                                       [--outputs-dir DIR] [--json FILE] [--profile PREFIX]

Session options: intra_op_num_threads=N, inter_op_num_threads=1, ORT_ENABLE_ALL,
ORT_SEQUENTIAL, CPUExecutionProvider. Prints create_ms, first_run_ms, min_ms, median_ms, p90_ms,
peak_rss_mb (VmHWM of this process, MB = 2^20 bytes; the Python interpreter and numpy count in
it, as node's runtime counts in run_ort.js's) and descriptive keys as one JSON object.
"""
import argparse
import json
import math
import os
import statistics
import time

import numpy as np
import onnxruntime


def peak_rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--inputs-dir", required=True)
    ap.add_argument("--outputs-dir")
    ap.add_argument("--json")
    ap.add_argument("--profile")
    a = ap.parse_args()

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = a.threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    if a.profile:
        options.enable_profiling = True
        options.profile_file_prefix = a.profile
    t0 = time.perf_counter()
    session = onnxruntime.InferenceSession(a.model, options, providers=["CPUExecutionProvider"])
    create_ms = (time.perf_counter() - t0) * 1e3

    feeds = {}
    for i in session.get_inputs():
        path = os.path.join(a.inputs_dir, f"{i.name}.npy")
        if not os.path.exists(path):
            raise SystemExit(f"no input file {path} for the model's input '{i.name}'")
        feeds[i.name] = np.load(path)
    names = [o.name for o in session.get_outputs()]

    t0 = time.perf_counter()
    first = session.run(names, feeds)
    first_run_ms = (time.perf_counter() - t0) * 1e3
    if a.outputs_dir:
        os.makedirs(a.outputs_dir, exist_ok=True)
        for name, value in zip(names, first):
            np.save(os.path.join(a.outputs_dir, f"{name}.npy"), value)
    for _ in range(a.warmup):
        session.run(names, feeds)
    times = []
    for _ in range(a.runs):
        t0 = time.perf_counter()
        session.run(names, feeds)
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    result = {
        "create_ms": round(create_ms, 3), "first_run_ms": round(first_run_ms, 3), "min_ms": round(times[0], 3),
        "median_ms": round(statistics.median(times), 3),
        "p90_ms": round(times[max(0, math.ceil(0.9 * len(times)) - 1)], 3),  # nearest rank
        "peak_rss_mb": round(peak_rss_mb(), 1), "tool": "onnxruntime (Python)", "version": onnxruntime.__version__,
        "threads": a.threads, "runs": a.runs, "warmup": a.warmup,
    }
    if a.profile:
        result["profile_file"] = session.end_profiling()
    text = json.dumps(result)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
