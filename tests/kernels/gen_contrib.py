#!/usr/bin/python3
"""Kernel cases for the com.microsoft contrib ops the graph optimiser emits (Gelu, FastGelu,
BiasGelu, SkipLayerNormalization, MultiHeadAttention) and ai.onnx Gelu (opset 20). References
are numpy code following the ops' published definitions (ONNX Runtime's contrib-op docs, the
ONNX spec).

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



def causal_mask(s, l):
    """Additive mask of MultiHeadAttention's unidirectional: row i sees keys j <= i + l - s; a
    finite fill, so a row that sees none weighs every key alike."""
    i, j = np.arange(s)[:, None], np.arange(l)[None, :]
    return np.where(j <= i + l - s, 0.0, -1e300)


def mha(q, k, v, n, bias=None, attn_bias=None, scale=None):
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    d, dv = q.shape[2], v.shape[2]
    if bias is not None:
        q, k, v = q + bias[:d], k + bias[d:2 * d], v + bias[2 * d:]
    b, s, _ = q.shape
    l = k.shape[1]
    h, hv = d // n, dv // n
    qh = q.reshape(b, s, n, h).transpose(0, 2, 1, 3)
    kh = k.reshape(b, l, n, h).transpose(0, 2, 1, 3)
    vh = v.reshape(b, l, n, hv).transpose(0, 2, 1, 3)
    x = qh @ kh.transpose(0, 1, 3, 2) * (1 / math.sqrt(h) if scale is None else scale)
    if attn_bias is not None:
        x = x + attn_bias
    x = np.exp(x - x.max(-1, keepdims=True))
    x = x / x.sum(-1, keepdims=True)
    return (x @ vh).transpose(0, 2, 1, 3).reshape(b, s, dv)


# MultiHeadAttention: tile-sized and ragged sizes, every attention_bias broadcast, bias, scale.
for name, (b, s, l, n, h, hv), with_bias, ab_shape, scale in [
        ("bert_like", (2, 16, 16, 4, 16, 16), False, (2, 1, 1, 16), None),
        ("tiles", (1, 8, 64, 2, 32, 32), False, None, 0.2),
        ("ragged", (2, 7, 5, 3, 3, 5), True, (1, 3, 7, 5), None),
        ("cross", (1, 5, 9, 2, 4, 6), True, (9,), 0.5),
        ("one_row", (1, 1, 3, 1, 2, 2), False, (1, 1, 1, 3), None),
        # 1448 x 1448 scores per head: the kernel's 4M-float budget takes the heads 2 + 1.
        ("head_groups", (1, 1448, 1448, 3, 2, 2), True, (1, 3, 1, 1448), None)]:
    q, k, v = rnd(b, s, n * h), rnd(b, l, n * h), rnd(b, l, n * hv)
    bias = rnd(2 * n * h + n * hv) if with_bias else None
    ab = rnd(*ab_shape) if ab_shape else None
    attrs = {"num_heads": n} if scale is None else {"num_heads": n, "scale": scale}
    w.case(f"mha_{name}", "MultiHeadAttention",
           [("query", q), ("key", k), ("value", v), ("bias", bias), ("key_padding_mask", None), ("attention_bias", ab)],
           [("output", mha(q, k, v, n, bias, ab, scale).astype(np.float32))], domain="com.microsoft", extra_opsets=MS,
           **attrs)
# Causal (unidirectional): as GPT-2 (S = L), with a past (S < L), with more queries than keys
# (the first rows see nothing), and with an attention_bias and a bias as well; short and long.
for name, (b, s, l, n, h), with_bias, ab_shape in [
        ("gpt2_like", (2, 16, 16, 2, 8), False, None), ("past", (1, 3, 7, 2, 4), False, None),
        ("more_queries", (1, 6, 4, 1, 4), False, None), ("biased", (2, 5, 5, 2, 4), True, (2, 1, 5, 5)),
        # Long enough for several of the kernel's blocks of query rows (16), the last ending mid-way.
        ("long", (1, 150, 150, 2, 8), False, None), ("long_past", (1, 140, 160, 2, 4), False, None),
        ("long_more_queries", (1, 160, 80, 1, 4), False, None), ("long_biased", (2, 70, 70, 2, 4), True, (2, 1, 70, 70))]:
    q, k, v = rnd(b, s, n * h), rnd(b, l, n * h), rnd(b, l, n * h)
    bias = rnd(3 * n * h) if with_bias else None
    ab = rnd(*ab_shape) if ab_shape else None
    full = causal_mask(s, l) + (ab if ab is not None else 0)
    w.case(f"mha_causal_{name}", "MultiHeadAttention",
           [("query", q), ("key", k), ("value", v), ("bias", bias), ("key_padding_mask", None), ("attention_bias", ab)],
           [("output", mha(q, k, v, n, bias, full).astype(np.float32))], domain="com.microsoft", extra_opsets=MS,
           num_heads=n, unidirectional=1)
# Broadcasting as the unfused MatMul/Add would: a batch-1 key/value against a batch-2 query,
# and a one-row query against a bias with rows.
q, k, v, ab = rnd(2, 3, 8), rnd(1, 5, 8), rnd(1, 5, 8), rnd(2, 1, 1, 5)
w.case("mha_batch_broadcast", "MultiHeadAttention",
       [("query", q), ("key", k), ("value", v), ("bias", None), ("key_padding_mask", None), ("attention_bias", ab)],
       [("output", mha(np.broadcast_to(q, (2, 3, 8)), np.broadcast_to(k, (2, 5, 8)), np.broadcast_to(v, (2, 5, 8)), 2,
                       None, ab).astype(np.float32))], domain="com.microsoft", extra_opsets=MS, num_heads=2)
q, ab = rnd(1, 1, 8), rnd(1, 2, 3, 5)
w.case("mha_row_broadcast", "MultiHeadAttention",
       [("query", q), ("key", k), ("value", v), ("bias", None), ("key_padding_mask", None), ("attention_bias", ab)],
       [("output", mha(np.broadcast_to(q, (1, 3, 8)), k, v, 2, None, ab).astype(np.float32))], domain="com.microsoft",
       extra_opsets=MS, num_heads=2)
q = rnd(1, 4, 8)
w.bad("mha_bad_heads", "MultiHeadAttention", [("query", q), ("key", q), ("value", q)], [("output", TP.FLOAT)],
      "num_heads", domain="com.microsoft", extra_opsets=MS, num_heads=3)
w.bad("mha_bad_attention_bias", "MultiHeadAttention",
      [("query", q), ("key", q), ("value", q), ("bias", None), ("key_padding_mask", None), ("attention_bias", rnd(1, 1, 3, 4))],
      [("output", TP.FLOAT)], "attention_bias", domain="com.microsoft", extra_opsets=MS, num_heads=2)

w.done()
