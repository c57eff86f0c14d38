#!/usr/bin/python3
"""Kernel cases for the com.microsoft contrib ops the graph optimiser emits (Gelu, FastGelu,
BiasGelu, SkipLayerNormalization) and ai.onnx Gelu (opset 20). References are numpy code
following the ops' published definitions (ONNX Runtime's contrib-op docs, the ONNX spec).

Usage: gen_contrib.py OUT_DIR (see kcase.py for the layout)."""
import math

import numpy as np
from onnx import TensorProto as TP

from kcase import Writer

w = Writer()
rng = np.random.default_rng(1729)
rnd = lambda *s: (rng.standard_normal(s) * 2).astype(np.float32)
MS = [("com.microsoft", 1)]
erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu_erf(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def gelu_tanh(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


# Gelu (com.microsoft): every float type, odd sizes (vector tails), empty.
for name, shape in [("vec", (7,)), ("mat", (3, 37)), ("rank4", (2, 3, 4, 5)), ("big", (5, 1000)), ("empty", (0, 4))]:
    x = rnd(*shape)
    w.case(f"ms_gelu_{name}", "Gelu", [("x", x)], [("y", gelu_erf(x).astype(np.float32))], domain="com.microsoft",
           extra_opsets=MS)
x = rnd(4, 9)
w.case("ms_gelu_f16", "Gelu", [("x", x.astype(np.float16))], [("y", gelu_erf(x.astype(np.float16)).astype(np.float16))],
       domain="com.microsoft", extra_opsets=MS)
w.case("ms_gelu_f64", "Gelu", [("x", x.astype(np.float64))], [("y", gelu_erf(x))], domain="com.microsoft",
       extra_opsets=MS)
w.case("ms_gelu_extremes", "Gelu", [("x", np.array([-40, -9, -5.5, -1e-3, 0, 1e-3, 5.5, 9, 40], np.float32))],
       [("y", gelu_erf(np.array([-40, -9, -5.5, -1e-3, 0, 1e-3, 5.5, 9, 40], np.float32)).astype(np.float32))],
       domain="com.microsoft", extra_opsets=MS)

# Gelu (ai.onnx opset 20): both approximations.
x = rnd(3, 11)
w.case("gelu20_none", "Gelu", [("x", x)], [("y", gelu_erf(x).astype(np.float32))], opset=20)
w.case("gelu20_tanh", "Gelu", [("x", x)], [("y", gelu_tanh(x).astype(np.float32))], opset=20, approximate="tanh")

# FastGelu: with and without bias.
x, b = rnd(2, 3, 19), rnd(19)
w.case("fast_gelu", "FastGelu", [("x", x)], [("y", gelu_tanh(x).astype(np.float32))], domain="com.microsoft",
       extra_opsets=MS)
w.case("fast_gelu_bias", "FastGelu", [("x", x), ("bias", b)], [("y", gelu_tanh(x + b).astype(np.float32))],
       domain="com.microsoft", extra_opsets=MS)
w.case("fast_gelu_bias_f16", "FastGelu", [("x", x.astype(np.float16)), ("bias", b.astype(np.float16))],
       [("y", gelu_tanh(x.astype(np.float16).astype(np.float32) + b.astype(np.float16)).astype(np.float16))],
       domain="com.microsoft", extra_opsets=MS)
w.bad("fast_gelu_bad_bias", "FastGelu", [("x", x), ("bias", rnd(5))], [("y", TP.FLOAT)], "bias",
      domain="com.microsoft", extra_opsets=MS)

# BiasGelu.
x, b = rnd(4, 2, 64), rnd(64)
w.case("bias_gelu", "BiasGelu", [("a", x), ("b", b)], [("c", gelu_erf(x + b).astype(np.float32))],
       domain="com.microsoft", extra_opsets=MS)
w.case("bias_gelu_f64", "BiasGelu", [("a", x.astype(np.float64)), ("b", b.astype(np.float64))],
       [("c", gelu_erf(x.astype(np.float64) + b))], domain="com.microsoft", extra_opsets=MS)
w.bad("bias_gelu_bad_bias", "BiasGelu", [("a", x), ("b", rnd(2, 64))], [("c", TP.FLOAT)], "bias",
      domain="com.microsoft", extra_opsets=MS)


def skip_ln(x, skip, gamma, beta, bias, eps):
    s = x.astype(np.float64) + skip + (0 if bias is None else bias)
    mean = s.mean(-1, keepdims=True)
    var = ((s - mean) ** 2).mean(-1, keepdims=True)
    inv = 1 / np.sqrt(var + eps)
    y = (s - mean) * inv * gamma + (0 if beta is None else beta)
    return y, mean, inv, s


# SkipLayerNormalization: every optional input and output, skip broadcast over the batch.
for name, xs, ss, with_beta, with_bias, outs in [
        ("full", (2, 3, 48), (2, 3, 48), True, True, 4), ("no_beta_bias", (2, 5, 40), (2, 5, 40), False, False, 1),
        ("skip_2d", (3, 4, 32), (4, 32), True, False, 4), ("skip_leading1", (2, 4, 24), (1, 4, 24), True, True, 2),
        ("sum_only", (6, 20), (6, 20), True, True, 4), ("odd_hidden", (3, 2, 37), (3, 2, 37), True, True, 1)]:
    x, skip, gamma = rnd(*xs), rnd(*ss), rnd(xs[-1])
    beta = rnd(xs[-1]) if with_beta else None
    bias = rnd(xs[-1]) if with_bias else None
    y, mean, inv, s = skip_ln(x, skip, gamma, beta, bias, 1e-5)
    ins = [("input", x), ("skip", skip), ("gamma", gamma), ("beta", beta), ("bias", bias)]
    outputs = [("output", y.astype(np.float32)), ("mean", mean.astype(np.float32)), ("inv_std_var", inv.astype(np.float32)),
               ("sum", s.astype(np.float32))][:outs]
    w.case(f"skip_layer_norm_{name}", "SkipLayerNormalization", ins, outputs, domain="com.microsoft", extra_opsets=MS,
           epsilon=1e-5)
x, skip, gamma, beta = rnd(2, 3, 16), rnd(2, 3, 16), rnd(16), rnd(16)
y, _, _, s = skip_ln(x.astype(np.float16), skip.astype(np.float16), gamma.astype(np.float16), beta.astype(np.float16),
                     None, 1e-12)
w.case("skip_layer_norm_f16", "SkipLayerNormalization",
       [("input", x.astype(np.float16)), ("skip", skip.astype(np.float16)), ("gamma", gamma.astype(np.float16)),
        ("beta", beta.astype(np.float16))], [("output", y.astype(np.float16))], domain="com.microsoft", extra_opsets=MS)
w.case("skip_layer_norm_f64", "SkipLayerNormalization",
       [("input", x.astype(np.float64)), ("skip", skip.astype(np.float64)), ("gamma", gamma.astype(np.float64))],
       [("output", skip_ln(x, skip, gamma, None, None, 1e-12)[0])], domain="com.microsoft", extra_opsets=MS)
w.bad("skip_layer_norm_bad_skip", "SkipLayerNormalization", [("input", x), ("skip", rnd(3, 3, 16)), ("gamma", gamma)],
      [("output", TP.FLOAT)], "skip", domain="com.microsoft", extra_opsets=MS)
w.bad("skip_layer_norm_bad_gamma", "SkipLayerNormalization", [("input", x), ("skip", skip), ("gamma", rnd(8))],
      [("output", TP.FLOAT)], "gamma", domain="com.microsoft", extra_opsets=MS)

w.done()
