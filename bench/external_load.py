#!/usr/bin/python3
"""Loading a model with 1 GB of external weights: session-create time and peak RSS, onyx
against ONNX Runtime 1.30 (issue 5, part 3).

Writes, into a scratch folder (default /tmp/onyx-external-load), a chain of 16 MatMuls
x[1,4096] @ W_k[4096,4096] whose 16 weights (64 MiB each, 1 GiB in all, float32) live in one
external file, then alternates `onyx bench` and `node bench/run_ort.js` on it (one thread,
1 warm-up and 3 timed runs each, --rounds times) and prints, per tool, the median create
time, the median peak RSS (VmHWM, MiB) and that RSS over the weights' size. Needs
bench/setup.sh for ORT; --onyx-only skips it. From the repository root:

    /usr/bin/python3 bench/external_load.py [--rounds 3] [--onyx build/onyx]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
DIM, LAYERS = 4096, 16


def write_model(folder):
    model_path = os.path.join(folder, "matmul_chain.onnx")
    if os.path.exists(model_path):
        return model_path
    os.makedirs(folder, exist_ok=True)
    inits, nodes = [], []
    rng = np.random.default_rng(0)
    offset = 0
    with open(os.path.join(folder, "weights.bin"), "wb") as f:
        for k in range(LAYERS):
            w = (rng.standard_normal((DIM, DIM), dtype=np.float32) / DIM ** 0.5).astype(np.float32)
            f.write(w.tobytes())
            t = TensorProto()
            t.name, t.data_type = f"w{k}", TensorProto.FLOAT
            t.dims.extend([DIM, DIM])
            t.data_location = TensorProto.EXTERNAL
            for key, value in (("location", "weights.bin"), ("offset", str(offset)), ("length", str(w.nbytes))):
                e = t.external_data.add()
                e.key, e.value = key, value
            offset += w.nbytes
            inits.append(t)
            nodes.append(helper.make_node("MatMul", ["x" if k == 0 else f"h{k}", f"w{k}"],
                                          ["y" if k == LAYERS - 1 else f"h{k + 1}"]))
    graph = helper.make_graph(nodes, "matmul_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, DIM])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, DIM])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    with open(model_path, "wb") as f:
        f.write(model.SerializeToString())
    np.save(os.path.join(folder, "x.npy"), np.ones((1, DIM), np.float32))
    return model_path


def run_json(cmd, json_path):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(json_path) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", default="/tmp/onyx-external-load")
    ap.add_argument("--onyx", default=os.path.join(os.path.dirname(HERE), "build", "onyx"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--onyx-only", action="store_true")
    args = ap.parse_args()
    model = write_model(args.folder)
    weights_mib = DIM * DIM * 4 * LAYERS / 2 ** 20
    inputs = os.path.join(args.folder, "inputs")
    os.makedirs(inputs, exist_ok=True)
    np.save(os.path.join(inputs, "x.npy"), np.ones((1, DIM), np.float32))
    out = os.path.join(args.folder, "result.json")
    common = ["--threads", "1", "--runs", "3", "--warmup", "1", "--inputs-dir", inputs, "--json", out]
    tools = {"onyx": [args.onyx, "bench", model] + common}
    if not args.onyx_only:
        tools["ORT 1.30"] = ["node", os.path.join(HERE, "run_ort.js"), model] + common
    results = {name: [] for name in tools}
    for _ in range(args.rounds):
        for name, cmd in tools.items():
            results[name].append(run_json(cmd, out))
    print(f"{LAYERS} MatMul weights of {DIM}x{DIM} float32 in one external file: {weights_mib:.0f} MiB; "
          f"median of {args.rounds} processes each")
    print(f"{'tool':<10} {'create ms':>10} {'peak RSS MiB':>13} {'RSS / weights':>14} {'median run ms':>14}")
    for name, rs in results.items():
        create = statistics.median(r["create_ms"] for r in rs)
        rss = statistics.median(r["peak_rss_mb"] for r in rs)
        run = statistics.median(r["median_ms"] for r in rs)
        print(f"{name:<10} {create:10.0f} {rss:13.0f} {rss / weights_mib:14.2f} {run:14.2f}")


if __name__ == "__main__":
    sys.exit(main())
