#!/usr/bin/python3
"""Kernel cases for more com.microsoft contrib ops that ORT's transformer tooling emits:
QuickGelu, BiasAdd, FusedMatMul, SkipSimplifiedLayerNormalization, and ONNX Runtime's
SimplifiedLayerNormalization (registered in the ai.onnx domain). References are numpy code
following the ops' published definitions (ONNX Runtime's contrib-op docs and schemas).

Usage: gen_contrib_transformer.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP
from onnx import helper

from kcase import Writer, model, to_proto, value_info

w = Writer()
rng = np.random.default_rng(4242)
rnd = lambda *s: (rng.standard_normal(s) * 2).astype(np.float32)
MS = [("com.microsoft", 1)]


def quick_gelu(x, alpha=1.702):
    x = x.astype(np.float64)
    return x / (1 + np.exp(-alpha * x))


# QuickGelu: default and explicit alpha, every float type, vector tails, large magnitudes, empty.
for name, shape in [("vec", (7,)), ("mat", (3, 37)), ("big", (4, 1000)), ("empty", (0, 5))]:
    x = rnd(*shape)
    w.case(f"quick_gelu_{name}", "QuickGelu", [("X", x)], [("Y", quick_gelu(x).astype(np.float32))],
           domain="com.microsoft", extra_opsets=MS)
x = rnd(5, 9)
w.case("quick_gelu_alpha", "QuickGelu", [("X", x)], [("Y", quick_gelu(x, 1.0).astype(np.float32))],
       domain="com.microsoft", extra_opsets=MS, alpha=1.0)
w.case("quick_gelu_f16", "QuickGelu", [("X", x.astype(np.float16))],
       [("Y", quick_gelu(x.astype(np.float16)).astype(np.float16))], domain="com.microsoft", extra_opsets=MS)
w.case("quick_gelu_f64", "QuickGelu", [("X", x.astype(np.float64))], [("Y", quick_gelu(x.astype(np.float64)))],
       domain="com.microsoft", extra_opsets=MS)
xe = np.array([-100, -30, -1, 0, 1, 30, 100], np.float32)
w.case("quick_gelu_extremes", "QuickGelu", [("X", xe)], [("Y", quick_gelu(xe).astype(np.float32))],
       domain="com.microsoft", extra_opsets=MS)

# BiasAdd: X + bias + skip over (N, S, C).
x, b, s = rnd(2, 6, 40), rnd(40), rnd(2, 6, 40)
w.case("bias_add", "BiasAdd", [("X", x), ("bias", b), ("skip", s)], [("Y", x + b + s)], domain="com.microsoft",
       extra_opsets=MS)
xh, bh, sh = x.astype(np.float16), b.astype(np.float16), s.astype(np.float16)
w.case("bias_add_f16", "BiasAdd", [("X", xh), ("bias", bh), ("skip", sh)],
       [("Y", (xh.astype(np.float32) + bh + sh).astype(np.float16))], domain="com.microsoft", extra_opsets=MS)
w.bad("bias_add_bad_skip", "BiasAdd", [("X", x), ("bias", b), ("skip", rnd(1, 6, 40))], [("Y", TP.FLOAT)], "skip",
      domain="com.microsoft", extra_opsets=MS)
w.bad("bias_add_bad_bias", "BiasAdd", [("X", x), ("bias", rnd(39)), ("skip", s)], [("Y", TP.FLOAT)], "bias",
      domain="com.microsoft", extra_opsets=MS)


def op(a, trans, trans_batch):
    if a.ndim < 2:
        return a
    if trans_batch:
        a = np.transpose(a, list(range(1, a.ndim - 1)) + [0, a.ndim - 1])
    if trans:
        a = np.swapaxes(a, -1, -2)
    return a


def fused_matmul(a, b, alpha=1.0, ta=0, tb=0, tba=0, tbb=0):
    return alpha * np.matmul(op(a.astype(np.float64), ta, tba), op(b.astype(np.float64), tb, tbb))


# FusedMatMul: each transpose flag alone and together, batch broadcast, 1-D operands, alpha,
# a constant 2-D B (packed once, read transposed), float16 and double.
for name, ash, bsh, kw in [
        ("plain", (3, 4), (4, 5), {}),
        ("alpha", (2, 3, 4), (4, 6), {"alpha": 0.125}),
        ("trans_a", (2, 4, 3), (2, 4, 5), {"transA": 1}),
        ("trans_b", (2, 3, 4), (2, 5, 4), {"transB": 1}),
        ("trans_both", (4, 3), (5, 4), {"transA": 1, "transB": 1, "alpha": 2.0}),
        ("batch_broadcast", (2, 1, 3, 4), (3, 4, 5), {}),
        ("trans_batch_a", (3, 2, 4), (2, 4, 5), {"transBatchA": 1}),
        ("trans_batch_b", (4, 3, 2), (2, 4, 5), {"transBatchB": 1}),
        ("trans_batch_both_trans", (4, 2, 3), (5, 2, 4), {"transBatchA": 1, "transA": 1, "transBatchB": 1, "transB": 1}),
        ("vec_a", (4,), (2, 4, 3), {"transA": 1}),
        ("vec_b", (2, 3, 4), (4,), {"transB": 1})]:
    a, bb = rnd(*ash), rnd(*bsh)
    y = fused_matmul(a, bb, kw.get("alpha", 1.0), kw.get("transA", 0), kw.get("transB", 0), kw.get("transBatchA", 0),
                     kw.get("transBatchB", 0))
    w.case(f"fused_matmul_{name}", "FusedMatMul", [("A", a), ("B", bb)], [("Y", y.astype(np.float32))],
           domain="com.microsoft", extra_opsets=MS, **kw)
# B an initializer: packed once in prepare, transposed by the packing.
a, bb = rnd(2, 3, 8), rnd(6, 8)
y = fused_matmul(a, bb, 0.5, 0, 1).astype(np.float32)
m = model([helper.make_node("FusedMatMul", ["A", "B"], ["Y"], domain="com.microsoft", alpha=0.5, transB=1)],
          [value_info("A", a)], [value_info("Y", y)], initializers=[to_proto(bb, "B")], extra_opsets=MS)
w.model_case("fused_matmul_constant_b_trans", m, [a], [y])
a, bb = rnd(3, 5), rnd(4, 5)
for dt, name in [(np.float16, "f16"), (np.float64, "f64")]:
    y = fused_matmul(a.astype(dt), bb.astype(dt), 0.25, 0, 1)
    w.case(f"fused_matmul_{name}", "FusedMatMul", [("A", a.astype(dt)), ("B", bb.astype(dt))], [("Y", y.astype(dt))],
           domain="com.microsoft", extra_opsets=MS, alpha=0.25, transB=1)
w.bad("fused_matmul_bad_k", "FusedMatMul", [("A", rnd(3, 4)), ("B", rnd(5, 6))], [("Y", TP.FLOAT)], "inner dims",
      domain="com.microsoft", extra_opsets=MS)


def rms(x, scale, axis, eps):
    x = x.astype(np.float64)
    axes = tuple(range(axis % x.ndim, x.ndim))
    inv = 1 / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
    return x * inv * scale.astype(np.float64).reshape(x.shape[axis % x.ndim:]), inv


# SimplifiedLayerNormalization (ai.onnx domain): last axis and an earlier one, inv_std_var,
# float16 and double, a wrong-sized scale.
for name, shape, axis in [("last", (2, 3, 64), -1), ("odd", (4, 37), -1), ("axis1", (2, 3, 4, 5), 1)]:
    x, sc = rnd(*shape), rnd(*shape[axis % len(shape):])
    y, inv = rms(x, sc, axis, 1e-5)
    w.case(f"simplified_layer_norm_{name}", "SimplifiedLayerNormalization", [("X", x), ("scale", sc)],
           [("Y", y.astype(np.float32)), ("inv_std_var", inv.astype(np.float32))], axis=axis, epsilon=1e-5)
x, sc = rnd(3, 16), rnd(16)
y, _ = rms(x.astype(np.float16), sc.astype(np.float16), -1, 1e-6)
w.case("simplified_layer_norm_f16", "SimplifiedLayerNormalization", [("X", x.astype(np.float16)),
                                                                      ("scale", sc.astype(np.float16))],
       [("Y", y.astype(np.float16))], epsilon=1e-6)
y, inv = rms(x.astype(np.float64), sc.astype(np.float64), -1, 1e-5)
w.case("simplified_layer_norm_f64_stash_double", "SimplifiedLayerNormalization",
       [("X", x.astype(np.float64)), ("scale", sc.astype(np.float64))], [("Y", y), ("inv_std_var", inv)], stash_type=11)
w.bad("simplified_layer_norm_bad_scale", "SimplifiedLayerNormalization", [("X", x), ("scale", rnd(15))],
      [("Y", TP.FLOAT)], "Scale")


def skip_rms(x, skip, gamma, bias, eps):
    s = x.astype(np.float64) + skip + (0 if bias is None else bias)
    inv = 1 / np.sqrt((s * s).mean(-1, keepdims=True) + eps)
    return s * inv * gamma, s.mean(-1, keepdims=True), inv, s


# SkipSimplifiedLayerNormalization: with and without bias, every output, skip broadcast, float16.
for name, xs, ss, with_bias, outs in [("full", (2, 3, 48), (2, 3, 48), True, 4), ("no_bias", (2, 5, 40), (2, 5, 40), False, 1),
                                      ("skip_2d", (3, 4, 32), (4, 32), True, 4), ("rows", (6, 20), (6, 20), False, 4)]:
    x, skip, gamma = rnd(*xs), rnd(*ss), rnd(xs[-1])
    bias = rnd(xs[-1]) if with_bias else None
    y, mean, inv, s = skip_rms(x, skip, gamma, bias, 1e-5)
    outputs = [("output", y.astype(np.float32)), ("mean", mean.astype(np.float32)), ("inv_std_var", inv.astype(np.float32)),
               ("sum", s.astype(np.float32))][:outs]
    w.case(f"skip_simplified_layer_norm_{name}", "SkipSimplifiedLayerNormalization",
           [("input", x), ("skip", skip), ("gamma", gamma), ("bias", bias)], outputs, domain="com.microsoft",
           extra_opsets=MS, epsilon=1e-5)
x, skip, gamma = rnd(2, 3, 16), rnd(2, 3, 16), rnd(16)
y, _, _, _ = skip_rms(x.astype(np.float16), skip.astype(np.float16), gamma.astype(np.float16), None, 1e-12)
w.case("skip_simplified_layer_norm_f16", "SkipSimplifiedLayerNormalization",
       [("input", x.astype(np.float16)), ("skip", skip.astype(np.float16)), ("gamma", gamma.astype(np.float16))],
       [("output", y.astype(np.float16))], domain="com.microsoft", extra_opsets=MS)
w.bad("skip_simplified_layer_norm_bad_gamma", "SkipSimplifiedLayerNormalization",
      [("input", x), ("skip", skip), ("gamma", rnd(8))], [("output", TP.FLOAT)], "gamma", domain="com.microsoft",
      extra_opsets=MS)

w.done()
