#!/usr/bin/python3
"""Memory and latency when input shapes change from run to run (issue 5, part 7).

Builds a BERT-style encoder with onnx.helper (token embedding, 4 layers of hidden 256,
4 heads, masked softmax attention, erf-GELU feed-forward of 1024, LayerNormalization; inputs
input_ids and attention_mask of shape [1, seq]), then through the onyx Python API:
  1. 2,000 runs with seq drawn uniformly from 1..512 (fixed seed), printing the process RSS
     after 100, 1,000 and 2,000 runs;
  2. 300 runs at seq 128, the fixed-shape latency, against the runs of phase 1 whose seq was
     within 128 +- 8.
Run from the repository root after scripts/build.sh:

    /usr/bin/python3 bench/changing_shapes.py [--runs 2000] [--threads 1]
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HIDDEN, HEADS, FFN, LAYERS, VOCAB = 256, 4, 1024, 4, 1000


def encoder_model(seed=0):
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def weight(name, shape, scale=0.05):
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def const(name, value, dtype=np.float32):
        inits.append(numpy_helper.from_array(np.array(value, dtype=dtype), name))
        return name

    def node(op, ins, outs, **attrs):
        nodes.append(helper.make_node(op, ins, outs, **attrs))
        return outs[0]

    head_dim = HIDDEN // HEADS
    const("one", 1.0), const("neg", -10000.0), const("half", 0.5), const("sqrt2", 2 ** 0.5)
    const("scale", 1.0 / head_dim ** 0.5)
    const("heads_shape", [0, 0, HEADS, head_dim], np.int64), const("merge_shape", [0, 0, HIDDEN], np.int64)
    const("axes12", [1, 2], np.int64)
    x = node("Gather", [weight("embedding", [VOCAB, HIDDEN]), "input_ids"], ["emb"])
    m = node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT)
    m = node("Sub", ["one", m], ["mask_inv"])
    m = node("Mul", [m, "neg"], ["mask_add0"])
    mask = node("Unsqueeze", [m, "axes12"], ["mask_add"])
    for i in range(LAYERS):
        p = f"l{i}_"

        def ln(inp, tag):
            return node("LayerNormalization", [inp, weight(p + tag + "_g", [HIDDEN], 1.0),
                                               weight(p + tag + "_b", [HIDDEN], 0.0)], [p + tag], epsilon=1e-5)

        def linear(inp, tag, n_in, n_out):
            mm = node("MatMul", [inp, weight(p + tag + "_w", [n_in, n_out])], [p + tag + "_mm"])
            return node("Add", [mm, weight(p + tag + "_bias", [n_out], 0.01)], [p + tag])

        def heads(inp, tag, perm):
            r = node("Reshape", [inp, "heads_shape"], [p + tag + "_r"])
            return node("Transpose", [r], [p + tag + "_t"], perm=perm)

        q = heads(linear(x, "q", HIDDEN, HIDDEN), "q", [0, 2, 1, 3])
        k = heads(linear(x, "k", HIDDEN, HIDDEN), "k", [0, 2, 3, 1])
        v = heads(linear(x, "v", HIDDEN, HIDDEN), "v", [0, 2, 1, 3])
        s = node("MatMul", [q, k], [p + "scores"])
        s = node("Mul", [s, "scale"], [p + "scaled"])
        s = node("Add", [s, mask], [p + "masked"])
        s = node("Softmax", [s], [p + "probs"], axis=-1)
        c = node("MatMul", [s, v], [p + "ctx"])
        c = node("Transpose", [c], [p + "ctx_t"], perm=[0, 2, 1, 3])
        c = node("Reshape", [c, "merge_shape"], [p + "ctx_m"])
        a = linear(c, "o", HIDDEN, HIDDEN)
        x = ln(node("Add", [a, x], [p + "res1"]), "ln1")
        h = linear(x, "f1", HIDDEN, FFN)
        g = node("Div", [h, "sqrt2"], [p + "g_div"])
        g = node("Erf", [g], [p + "g_erf"])
        g = node("Add", [g, "one"], [p + "g_add"])
        g = node("Mul", [h, g], [p + "g_mul"])
        g = node("Mul", [g, "half"], [p + "gelu"])
        f = linear(g, "f2", FFN, HIDDEN)
        x = ln(node("Add", [f, x], [p + "res2"]), "ln2")
    node("Identity", [x], ["last_hidden_state"])
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "seq"])
    mask_in = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, "seq"])
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [1, "seq", HIDDEN])
    graph = helper.make_graph(nodes, "bert_style_encoder", [ids, mask_in], [out], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def feeds(seq, rng):
    return {"input_ids": rng.integers(0, VOCAB, (1, seq), dtype=np.int64),
            "attention_mask": np.ones((1, seq), dtype=np.int64)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import onyx

    opts = onyx.SessionOptions()
    opts.intra_op_num_threads = args.threads
    sess = onyx.InferenceSession(encoder_model(), opts)
    rng = np.random.default_rng(1)
    print(f"BERT-style encoder ({LAYERS} layers, hidden {HIDDEN}), {args.threads} thread(s); RSS after load "
          f"{rss_mb():.1f} MB")
    near_128 = []
    checkpoints = {100, 1000, args.runs}
    for run in range(1, args.runs + 1):
        seq = int(rng.integers(1, 513))
        f = feeds(seq, rng)
        t0 = time.perf_counter()
        sess.run(None, f)
        ms = (time.perf_counter() - t0) * 1000
        if abs(seq - 128) <= 8:
            near_128.append(ms)
        if run in checkpoints:
            print(f"after {run:5d} runs with seq in 1..512: RSS {rss_mb():7.1f} MB")
    fixed = []
    f = feeds(128, rng)
    for _ in range(20):
        sess.run(None, f)
    for _ in range(300):
        t0 = time.perf_counter()
        sess.run(None, f)
        fixed.append((time.perf_counter() - t0) * 1000)
    print(f"after 300 more runs at seq 128:          RSS {rss_mb():7.1f} MB")
    print(f"seq 128 fixed shape: median {statistics.median(fixed):.2f} ms; "
          f"seq 120..136 among changing shapes: median {statistics.median(near_128):.2f} ms over {len(near_128)} runs")


if __name__ == "__main__":
    main()
