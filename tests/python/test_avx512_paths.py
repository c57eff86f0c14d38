"""The AVX-512 loops of Softmax, Gelu / FastGelu, GeluGrad, LayerNormalization,
SkipLayerNormalization, LayerNormalizationGrad and the column sums of ReduceSum / ReduceMean
(kernels/avx512_math.h) against float64 written out in numpy, and against the portable loops
that other CPUs run: each case runs in two fresh processes, one with ONYX_AVX512=0. Lengths
leave vector tails; LayerNormalizationGrad spans several of its 64-row blocks and must give
bit-identical results at 1 and 2 threads."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

CHILD = r'''
import sys, numpy as np, onyx
from onnx import helper, TensorProto
F = TensorProto.FLOAT

def run(op, inputs, outputs, threads=1, domain="", **attrs):
    node = helper.make_node(op, list(inputs), outputs, domain=domain, **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(k, F, list(v.shape)) for k, v in inputs.items()],
                              [helper.make_tensor_value_info(o, F, None) for o in outputs if o])
    opsets = [helper.make_opsetid("", 17)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    so = onyx.SessionOptions()
    so.intra_op_num_threads = threads
    return onyx.InferenceSession(model.SerializeToString(), so).run(None, inputs)

g = np.random.default_rng(7)
out = {}
scores = g.standard_normal((3, 5, 37)).astype(np.float32) * 8
scores[0, 0, :5] = -np.inf  # masked positions
out["softmax"] = run("Softmax", {"x": scores}, ["y"], axis=-1)[0]
x = np.concatenate([g.uniform(-12, 12, 1000), [0.0]]).astype(np.float32)
dy = g.uniform(-2, 2, x.size).astype(np.float32)
out["gelu"] = run("Gelu", {"x": x}, ["y"], domain="com.microsoft")[0]
out["fast_gelu"] = run("FastGelu", {"x": x}, ["y"], domain="com.microsoft")[0]
for form in ("none", "tanh"):
    out["gelu_grad_" + form] = run("GeluGrad", {"dy": dy, "x": x}, ["dx"], domain="ai.onyx.training", approximate=form)[0]
ln_dy = g.standard_normal((150, 40)).astype(np.float32)
ln_x = (3 + 2 * g.standard_normal((150, 40))).astype(np.float32)
scale = g.uniform(0.5, 1.5, 40).astype(np.float32)
for threads in (1, 2):
    dx, ds, db = run("LayerNormalizationGrad", {"dy": ln_dy, "x": ln_x, "scale": scale}, ["dx", "dscale", "dbias"],
                     threads=threads, domain="ai.onyx.training", axis=-1, epsilon=1e-5)
    out[f"ln_dx_{threads}"], out[f"ln_dscale_{threads}"], out[f"ln_dbias_{threads}"] = dx, ds, db
out["ln_dx_only"] = run("LayerNormalizationGrad", {"dy": ln_dy, "x": ln_x, "scale": scale}, ["dx"],
                        domain="ai.onyx.training", axis=-1, epsilon=1e-5)[0]
rows = (3 + 2 * g.standard_normal((70, 40))).astype(np.float32)
skip = g.standard_normal((70, 40)).astype(np.float32)
bias = g.standard_normal(40).astype(np.float32)
out["layer_norm"] = run("LayerNormalization", {"x": rows, "scale": scale, "b": bias}, ["y"], axis=-1, epsilon=1e-5)[0]
out["skip_ln"], out["skip_ln_sum"] = run(
    "SkipLayerNormalization", {"x": rows, "skip": skip, "gamma": scale, "beta": bias, "bias": scale},
    ["y", "", "", "sum"], domain="com.microsoft", epsilon=1e-5)
out["skip_ln_alone"] = run("SkipLayerNormalization", {"x": rows, "skip": skip, "gamma": scale}, ["y"],
                           domain="com.microsoft", epsilon=1e-5)[0]
def run_reduce(op, x, axes):
    node = helper.make_node(op, ["x", "axes"], ["y"], keepdims=0)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", F, list(x.shape))],
                              [helper.make_tensor_value_info("y", F, None)],
                              [helper.make_tensor(name="axes", data_type=TensorProto.INT64, dims=[len(axes)], vals=axes)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return onyx.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]

columns = g.standard_normal((5, 7, 150)).astype(np.float32)
out["reduce_sum"] = run_reduce("ReduceSum", columns, [0, 1])
out["reduce_mean"] = run_reduce("ReduceMean", columns, [0, 1])
inputs = dict(columns=columns, rows=rows, skip=skip, bias=bias, scores=scores, x=x, dy=dy, ln_dy=ln_dy, ln_x=ln_x, scale=scale)
np.savez(sys.argv[1], **out, **{"in_" + k: v for k, v in inputs.items()})
'''


def results(tmp_path, avx512):
    path = tmp_path / ("on.npz" if avx512 else "off.npz")
    env = dict(os.environ)
    env.pop("ONYX_AVX512", None)
    if not avx512:
        env["ONYX_AVX512"] = "0"
    subprocess.run([sys.executable, "-c", CHILD, str(path)], check=True, env=env)
    return dict(np.load(path))


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("avx512")
    return results(tmp, True), results(tmp, False)


def gelu_derivative(x, form):
    if form == "none":
        return 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2))) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    k, c = math.sqrt(2 / math.pi), 0.044715
    t = np.tanh(k * (x + c * x ** 3))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x)


def expected(r):
    s = r["in_scores"].astype(np.float64)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    x, dy = r["in_x"].astype(np.float64), r["in_dy"].astype(np.float64)
    want = {"softmax": e / e.sum(axis=-1, keepdims=True),
            "gelu": 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2))),
            "fast_gelu": 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))}
    for form in ("none", "tanh"):
        want["gelu_grad_" + form] = dy * gelu_derivative(x, form)
    ldy, lx, sc = (r[k].astype(np.float64) for k in ("in_ln_dy", "in_ln_x", "in_scale"))
    mu = lx.mean(axis=1, keepdims=True)
    inv = 1 / np.sqrt(((lx - mu) ** 2).mean(axis=1, keepdims=True) + 1e-5)
    xhat, gg = (lx - mu) * inv, ldy * sc
    dx = inv * (gg - gg.mean(axis=1, keepdims=True) - xhat * (gg * xhat).mean(axis=1, keepdims=True))
    for t in (1, 2):
        want[f"ln_dx_{t}"], want[f"ln_dscale_{t}"], want[f"ln_dbias_{t}"] = dx, (ldy * xhat).sum(axis=0), ldy.sum(axis=0)
    want["ln_dx_only"] = dx

    def normalized(v, beta):
        m = v.mean(axis=1, keepdims=True)
        return (v - m) / np.sqrt(((v - m) ** 2).mean(axis=1, keepdims=True) + 1e-5) * sc + beta

    rows, skip, bias = (r[k].astype(np.float64) for k in ("in_rows", "in_skip", "in_bias"))
    want["layer_norm"] = normalized(rows, bias)
    want["skip_ln_sum"] = rows + skip + sc
    want["skip_ln"] = normalized(rows + skip + sc, bias)
    want["skip_ln_alone"] = normalized(rows + skip, 0)
    columns = r["in_columns"].astype(np.float64)
    want["reduce_sum"], want["reduce_mean"] = columns.sum(axis=(0, 1)), columns.mean(axis=(0, 1))
    return want


@pytest.mark.parametrize("path", ["avx512", "portable"])
def test_each_path_matches_float64(both, path):
    r = both[0] if path == "avx512" else both[1]
    for name, want in expected(r).items():
        np.testing.assert_allclose(r[name], want, rtol=3e-5, atol=3e-6, err_msg=name)
    assert (r["softmax"][0, 0, :5] == 0).all()  # exp of -inf is exactly 0 on both paths


def test_the_paths_agree_and_the_layer_norm_gradient_is_the_same_at_any_thread_count(both):
    on, off = both
    for name in on:
        if not name.startswith("in_"):
            np.testing.assert_allclose(on[name], off[name], rtol=1e-5, atol=3e-6, err_msg=name)
    for r in both:
        for part in ("dx", "dscale", "dbias"):
            np.testing.assert_array_equal(r[f"ln_{part}_1"], r[f"ln_{part}_2"])
        np.testing.assert_array_equal(r["ln_dx_only"], r["ln_dx_1"])
    for name in ("reduce_sum", "reduce_mean"):  # the same double sums in the same order on both paths
        np.testing.assert_array_equal(on[name], off[name])
