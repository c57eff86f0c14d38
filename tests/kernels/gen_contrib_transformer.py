#!/usr/bin/python3
"""Kernel cases for more com.microsoft contrib ops that ORT's transformer tooling emits:
QuickGelu, BiasAdd, FusedMatMul, SkipSimplifiedLayerNormalization, RotaryEmbedding,
EmbedLayerNormalization, Attention, QAttention, GroupQueryAttention, and ONNX Runtime's SimplifiedLayerNormalization (registered in the
ai.onnx domain). References are numpy code
following the ops' published definitions (ONNX Runtime's contrib-op docs and schemas).

Usage: gen_contrib_transformer.py OUT_DIR (see kcase.py for the layout)."""
import math

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
        # read in place by oneDNN (no copy): a batched transposed A over a 2-D B, broadcasting
        ("trans_a_batched_over_2d", (2, 4, 3), (4, 5), {"transA": 1}),
        ("trans_b_batch_broadcast", (2, 1, 3, 4), (3, 5, 4), {"transB": 1}),
        ("trans_both_batched", (2, 3, 4, 3), (2, 3, 5, 4), {"transA": 1, "transB": 1}),
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
# ai.onyx.training FusedMatMulBias: activation(A @ op(B) + bias), B an input (read as stored) or an
# initializer (packed once; A's batch rows taken as one product), with each activation.
TRAIN = [("ai.onyx.training", 1)]
gelu_erf = lambda x: 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))
gelu_tanh = lambda x: 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
for act, fn in [("", lambda x: x), ("Gelu", gelu_erf), ("FastGelu", gelu_tanh)]:
    for trans_b in (0, 1):
        a, bias = rnd(2, 3, 8), rnd(6)
        bb = rnd(6, 8) if trans_b else rnd(8, 6)
        y = fn(a.astype(np.float64) @ (bb.T if trans_b else bb) + bias).astype(np.float32)
        attrs = {"transB": trans_b, **({"activation": act} if act else {})}
        tag = f"{act.lower() or 'none'}_{'trans_b' if trans_b else 'plain'}"
        w.case(f"fused_matmul_bias_{tag}", "FusedMatMulBias", [("A", a), ("B", bb), ("bias", bias)], [("Y", y)],
               domain="ai.onyx.training", extra_opsets=TRAIN, **attrs)
        m = model([helper.make_node("FusedMatMulBias", ["A", "B", "bias"], ["Y"], domain="ai.onyx.training", **attrs)],
                  [value_info("A", a)], [value_info("Y", y)], initializers=[to_proto(bb, "B"), to_proto(bias, "bias")],
                  extra_opsets=TRAIN)
        w.model_case(f"fused_matmul_bias_{tag}_constant_b", m, [a], [y])
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

def rotary(x, pos, cos, sin, interleaved, heads=None, rot=None):
    """x (B, S, N*H) or (B, N, S, H); pos (B, S); caches (max_seq, D/2)."""
    x = x.astype(np.float64)
    if x.ndim == 3:
        b, s, hidden = x.shape
        h = hidden // heads if heads else 2 * cos.shape[1]
        xh = x.reshape(b, s, hidden // h, h).transpose(0, 2, 1, 3)
    else:
        xh = x
    d = rot or xh.shape[3]
    c = cos.astype(np.float64)[pos][:, None]  # (B, 1, S, D/2)
    sn = sin.astype(np.float64)[pos][:, None]
    y = xh.copy()
    if interleaved:
        a, bb = xh[..., 0:d:2], xh[..., 1:d:2]
        y[..., 0:d:2], y[..., 1:d:2] = a * c - bb * sn, bb * c + a * sn
    else:
        a, bb = xh[..., :d // 2], xh[..., d // 2:d]
        y[..., :d // 2], y[..., d // 2:d] = a * c - bb * sn, bb * c + a * sn
    return y.transpose(0, 2, 1, 3).reshape(x.shape) if x.ndim == 3 else y


# RotaryEmbedding: halves and interleaved pairs, 3-D and 4-D input, one start position or
# (B, S) positions, a partial rotary width, float16.
max_seq, b, s, n, h = 32, 2, 5, 3, 8
angles = np.arange(max_seq)[:, None] * (1.0 / 10000 ** (np.arange(h // 2) * 2 / h))[None, :]
cos_c, sin_c = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
pos_bs = rng.integers(0, max_seq, size=(b, s)).astype(np.int64)
for name, inter, four_d, one_start in [("halves", 0, False, False), ("interleaved", 1, False, False),
                                       ("bnsh", 0, True, False), ("start", 1, False, True)]:
    x = rnd(b, n, s, h) if four_d else rnd(b, s, n * h)
    pos = np.array([7], np.int64) if one_start else pos_bs
    pos_full = (7 + np.arange(s))[None, :].repeat(b, 0) if one_start else pos_bs
    attrs = {"interleaved": inter} if four_d else {"interleaved": inter, "num_heads": n}
    w.case(f"rotary_{name}", "RotaryEmbedding", [("input", x), ("position_ids", pos), ("cos_cache", cos_c),
                                                 ("sin_cache", sin_c)],
           [("output", rotary(x, pos_full, cos_c, sin_c, inter, n).astype(np.float32))], domain="com.microsoft",
           extra_opsets=MS, **attrs)
# No num_heads: the head size comes from the caches.
x = rnd(b, s, n * h)
w.case("rotary_head_from_cache", "RotaryEmbedding", [("input", x), ("position_ids", pos_bs), ("cos_cache", cos_c),
                                                     ("sin_cache", sin_c)],
       [("output", rotary(x, pos_bs, cos_c, sin_c, 0).astype(np.float32))], domain="com.microsoft", extra_opsets=MS)
# Rotary width 4 of head 8: the last 4 elements pass through.
cos4, sin4 = cos_c[:, :2].copy(), sin_c[:, :2].copy()
w.case("rotary_partial", "RotaryEmbedding", [("input", x), ("position_ids", pos_bs), ("cos_cache", cos4),
                                             ("sin_cache", sin4)],
       [("output", rotary(x, pos_bs, cos4, sin4, 0, n, 4).astype(np.float32))], domain="com.microsoft",
       extra_opsets=MS, num_heads=n, rotary_embedding_dim=4)
xh = x.astype(np.float16)
w.case("rotary_f16", "RotaryEmbedding", [("input", xh), ("position_ids", pos_bs), ("cos_cache", cos_c.astype(np.float16)),
                                         ("sin_cache", sin_c.astype(np.float16))],
       [("output", rotary(xh, pos_bs, cos_c.astype(np.float16), sin_c.astype(np.float16), 0, n).astype(np.float16))],
       domain="com.microsoft", extra_opsets=MS, num_heads=n)
w.bad("rotary_bad_position", "RotaryEmbedding", [("input", x), ("position_ids", np.array([30], np.int64)),
                                                 ("cos_cache", cos_c), ("sin_cache", sin_c)], [("output", TP.FLOAT)],
      "caches' 32 rows", domain="com.microsoft", extra_opsets=MS, num_heads=n)


def embed_ln(ids, seg, words, pos_emb, seg_emb, gamma, beta, mask, pos_ids, eps):
    b, s = ids.shape
    p = np.arange(s)[None, :].repeat(b, 0) if pos_ids is None else np.broadcast_to(pos_ids, (b, s))
    e = words.astype(np.float64)[ids] + pos_emb.astype(np.float64)[p]
    if seg is not None:
        e = e + seg_emb.astype(np.float64)[seg]
    mean = e.mean(-1, keepdims=True)
    var = ((e - mean) ** 2).mean(-1, keepdims=True)
    y = (e - mean) / np.sqrt(var + eps) * gamma + (0 if beta is None else beta)
    mi = (mask == 1).sum(1).astype(np.int32) if mask is not None else np.zeros(b, np.int32)
    return y, mi, e


# EmbedLayerNormalization: BERT's full form (segments, mask, all outputs), no segments, given
# position ids (per batch and one row), float16, an id outside its table.
vw, vp, vs, hid, b, s = 50, 16, 2, 24, 2, 7
words, pos_emb, seg_emb, gamma, beta = rnd(vw, hid), rnd(vp, hid), rnd(vs, hid), rnd(hid), rnd(hid)
ids = rng.integers(0, vw, size=(b, s)).astype(np.int32)
seg = rng.integers(0, vs, size=(b, s)).astype(np.int32)
mask = np.array([[1] * 7, [1] * 4 + [0] * 3], np.int32)
y, mi, e = embed_ln(ids, seg, words, pos_emb, seg_emb, gamma, beta, mask, None, 1e-12)
ins = [("input_ids", ids), ("segment_ids", seg), ("word_embedding", words), ("position_embedding", pos_emb),
       ("segment_embedding", seg_emb), ("gamma", gamma), ("beta", beta), ("mask", mask)]
w.case("embed_ln_bert", "EmbedLayerNormalization", ins,
       [("output", y.astype(np.float32)), ("mask_index", mi), ("embedding_sum", e.astype(np.float32))],
       domain="com.microsoft", extra_opsets=MS)
y, mi, _ = embed_ln(ids, None, words, pos_emb, None, gamma, beta, None, None, 1e-5)
w.case("embed_ln_no_segments", "EmbedLayerNormalization",
       [("input_ids", ids), ("segment_ids", None), ("word_embedding", words), ("position_embedding", pos_emb),
        ("segment_embedding", None), ("gamma", gamma), ("beta", beta)],
       [("output", y.astype(np.float32)), ("mask_index", mi)], domain="com.microsoft", extra_opsets=MS, epsilon=1e-5)
for name, pid in [("position_ids", rng.integers(0, vp, size=(b, s)).astype(np.int32)),
                  ("position_row", rng.integers(0, vp, size=(1, s)).astype(np.int32))]:
    y, _, _ = embed_ln(ids, seg, words, pos_emb, seg_emb, gamma, beta, None, pid, 1e-12)
    w.case(f"embed_ln_{name}", "EmbedLayerNormalization", ins[:7] + [("mask", None), ("position_ids", pid)],
           [("output", y.astype(np.float32))], domain="com.microsoft", extra_opsets=MS)
f16 = [(n_, v.astype(np.float16) if v.dtype == np.float32 else v) for n_, v in ins]
y, _, _ = embed_ln(ids, seg, *[v for _, v in f16[2:7]], mask, None, 1e-12)
w.case("embed_ln_f16", "EmbedLayerNormalization", f16, [("output", y.astype(np.float16))], domain="com.microsoft",
       extra_opsets=MS)
bad_ids = ids.copy()
bad_ids[1, 3] = vw
w.bad("embed_ln_bad_id", "EmbedLayerNormalization", [("input_ids", bad_ids)] + ins[1:], [("output", TP.FLOAT)],
      "outside", domain="com.microsoft", extra_opsets=MS)


def attention(x, wts, bias, heads, mask=None, uni=0, attn_bias=None, sizes=None, scale=None, mfv=-10000.0):
    """Attention (packed QKV): additive masks of mask_filter_value, once per reason."""
    bsz, seq, _ = x.shape
    hq, hk, hv = sizes if sizes else [wts.shape[1] // 3] * 3
    qkv = x.astype(np.float64) @ wts.astype(np.float64) + (bias if bias is not None else 0)
    q, k, v = qkv[..., :hq], qkv[..., hq:hq + hk], qkv[..., hq + hk:]
    h, dh = hq // heads, hv // heads
    split = lambda t, d: t.reshape(bsz, seq, heads, d).transpose(0, 2, 1, 3)
    q, k, v = split(q, h), split(k, h), split(v, dh)
    sc = np.float64(scale if scale is not None else 1 / np.sqrt(h))
    a = q @ k.transpose(0, 1, 3, 2) * sc
    add = np.zeros((bsz, 1, seq, seq))
    j = np.arange(seq)
    if mask is not None:
        if mask.ndim == 1 and mask.shape[0] == bsz:
            add += np.where(j[None, None, None, :] >= mask[:, None, None, None], mfv, 0)
        elif mask.ndim == 1:
            end, start = mask[:bsz], mask[bsz:]
            out = (j[None, :] >= end[:, None]) | (j[None, :] < start[:, None])
            add += np.where(out[:, None, None, :], mfv, 0)
        elif mask.ndim == 2:
            add += np.where(mask[:, None, None, :] > 0, 0, mfv)
        else:
            add += np.where(mask[:, None, :, :] > 0, 0, mfv)
    if uni:
        add += np.where(j[None, :] > j[:, None], mfv, 0)[None, None]
    a = a + add + (attn_bias if attn_bias is not None else 0)
    a = np.exp(a - a.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    return (a @ v).transpose(0, 2, 1, 3).reshape(bsz, seq, hv).astype(np.float32)


# Attention: no mask, every mask form, unidirectional (alone and with a padding mask),
# attention_bias broadcast over batch, qkv_hidden_sizes with hv != hq, an explicit scale, and
# the weights as an initializer (packed once in prepare).
ab, asq, ahin, aheads = 2, 5, 16, 4
ax = rnd(ab, asq, ahin) * 0.5
aw = rnd(ahin, 3 * ahin) * 0.3
abias = rnd(3 * ahin) * 0.3
masks = {
    "no_mask": None,
    "mask_lengths": np.array([5, 3], np.int32),
    "mask_end_start": np.array([5, 4, 0, 1], np.int32),
    "mask_raw2": np.array([[1, 1, 1, 0, 1], [1, 0, 1, 1, 0]], np.int32),
    "mask_raw3": rng.integers(0, 2, size=(ab, asq, asq)).astype(np.int32),
}
for name, m in masks.items():
    ins = [("input", ax), ("weights", aw), ("bias", abias), ("mask_index", m)]
    w.case(f"attention_{name}", "Attention", ins, [("output", attention(ax, aw, abias, aheads, m))],
           domain="com.microsoft", extra_opsets=MS, num_heads=aheads)
m = masks["mask_lengths"]
w.case("attention_unidirectional_and_mask", "Attention", [("input", ax), ("weights", aw), ("bias", abias), ("mask_index", m)],
       [("output", attention(ax, aw, abias, aheads, m, uni=1))], domain="com.microsoft", extra_opsets=MS,
       num_heads=aheads, unidirectional=1)
bias4 = rnd(1, aheads, asq, asq)
w.case("attention_bias_no_qkv_bias", "Attention",
       [("input", ax), ("weights", aw), ("bias", None), ("mask_index", None), ("past", None), ("attention_bias", bias4)],
       [("output", attention(ax, aw, None, aheads, attn_bias=bias4))], domain="com.microsoft", extra_opsets=MS,
       num_heads=aheads)
aw2, abias2 = rnd(ahin, 16 + 16 + 8) * 0.3, rnd(40) * 0.3
w.case("attention_qkv_sizes_scale", "Attention", [("input", ax), ("weights", aw2), ("bias", abias2)],
       [("output", attention(ax, aw2, abias2, aheads, sizes=[16, 16, 8], scale=0.3))], domain="com.microsoft",
       extra_opsets=MS, num_heads=aheads, qkv_hidden_sizes=[16, 16, 8], scale=0.3)
mi = masks["mask_raw2"]
expected = attention(ax, aw, abias, aheads, mi)
mw = model([helper.make_node("Attention", ["input", "weights", "bias", "mask_index"], ["output"], domain="com.microsoft",
                             num_heads=aheads)],
           [value_info("input", ax), value_info("mask_index", mi)], [value_info("output", expected)],
           initializers=[to_proto(aw, "weights"), to_proto(abias, "bias")], extra_opsets=MS)
w.model_case("attention_weights_constant", mw, [ax, mi], [expected])
def attention_past(x, wts, bias, heads, past, mask=None, uni=0, mfv=-10000.0):
    """Attention with a past [2, B, N, P, H]: keys and values are the past's then the new ones;
    returns the output and present [2, B, N, P + S, H]."""
    bsz, seq, _ = x.shape
    hid = wts.shape[1] // 3
    hd = hid // heads
    qkv = x.astype(np.float64) @ wts.astype(np.float64) + bias
    split = lambda t: t.reshape(bsz, seq, heads, hd).transpose(0, 2, 1, 3)
    q, k, v = split(qkv[..., :hid]), split(qkv[..., hid:2 * hid]), split(qkv[..., 2 * hid:])
    k = np.concatenate([past[0], k], axis=2)
    v = np.concatenate([past[1], v], axis=2)
    plen, keys = past.shape[3], past.shape[3] + seq
    a = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
    j = np.arange(keys)
    if mask is not None:
        a = a + np.where(mask[:, None, None, :] > 0, 0, mfv)
    if uni:
        a = a + np.where(j[None, :] > plen + np.arange(seq)[:, None], mfv, 0)[None, None]
    a = np.exp(a - a.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    out = (a @ v).transpose(0, 2, 1, 3).reshape(bsz, seq, hid).astype(np.float32)
    return out, np.stack([k, v]).astype(np.float32)


# Attention with state, as ORT's GPT-2 optimiser writes it: past in, present out, causal; and a
# first step with no past that still asks for present.
apast = rnd(2, ab, aheads, 3, ahin // aheads) * 0.5
amask = np.array([[1] * 8, [0, 1, 1, 1, 1, 1, 1, 1]], np.int32)
y_p, pres = attention_past(ax, aw, abias, aheads, apast, mask=amask, uni=1)
w.case("attention_past_present_causal", "Attention",
       [("input", ax), ("weights", aw), ("bias", abias), ("mask_index", amask), ("past", apast)],
       [("output", y_p), ("present", pres)], domain="com.microsoft", extra_opsets=MS, num_heads=aheads, unidirectional=1)
empty_past = np.zeros((2, ab, aheads, 0, ahin // aheads), np.float32)
y0, pres0 = attention_past(ax, aw, abias, aheads, empty_past, uni=1)
w.case("attention_present_without_past", "Attention", [("input", ax), ("weights", aw), ("bias", abias)],
       [("output", y0), ("present", pres0)], domain="com.microsoft", extra_opsets=MS, num_heads=aheads, unidirectional=1)
w.bad("attention_past_wrong_shape", "Attention",
      [("input", ax), ("weights", aw), ("bias", abias), ("mask_index", None), ("past", rnd(2, ab, aheads, 3, 3))],
      [("output", TP.FLOAT)], "must be float32 [2, 2, 4, past, 4]", domain="com.microsoft", extra_opsets=MS,
      num_heads=aheads)
w.bad("attention_heads_do_not_divide", "Attention", [("input", ax), ("weights", aw), ("bias", abias)],
      [("output", TP.FLOAT)], "does not divide", domain="com.microsoft", extra_opsets=MS, num_heads=3)

# QAttention: uint8 input with a zero point and int8 weights (per tensor and per column, the
# weights fed and constant), int8 input with uint8 weights at zero point 128, a [B] mask and
# unidirectional. Reference: the exact integer products scaled, then Attention's reference.
def q_attention_case(name, xq, izp, xs, wq, wzp, ws, qbias, mask=None, uni=0, constant=False):
    xf = xq.astype(np.float64) - np.float64(izp)
    wf = (wq.astype(np.float64) - wzp.astype(np.float64)) * (np.float64(xs) * ws.astype(np.float64))
    expected = attention(xf, wf, qbias, aheads, mask, uni=uni)
    ins = [("input", xq), ("weight", wq), ("bias", qbias), ("input_scale", np.array(xs, np.float32)),
           ("weight_scale", ws), ("mask_index", mask), ("input_zero_point", np.array(izp, xq.dtype)),
           ("weight_zero_point", wzp)]
    if not constant:
        w.case(f"q_attention_{name}", "QAttention", ins, [("output", expected)], domain="com.microsoft",
               extra_opsets=MS, num_heads=aheads, unidirectional=uni)
        return
    names = [n if v is not None else "" for n, v in ins]
    consts = ("weight", "weight_scale", "weight_zero_point", "bias")
    inits = [to_proto(v, n) for n, v in ins if v is not None and n in consts]
    feeds = [(n, v) for n, v in ins if v is not None and n not in consts]
    m = model([helper.make_node("QAttention", names, ["output"], domain="com.microsoft", num_heads=aheads,
                                unidirectional=uni)],
              [value_info(n, v) for n, v in feeds], [value_info("output", expected)], initializers=inits, extra_opsets=MS)
    w.model_case(f"q_attention_{name}", m, [v for _, v in feeds], [expected])


qx = rng.integers(0, 256, size=(ab, asq, ahin)).astype(np.uint8)
qw = rng.integers(-127, 128, size=(ahin, 3 * ahin)).astype(np.int8)
qb = rnd(3 * ahin) * 0.3
q_attention_case("u8s8", qx, 120, 0.01, qw, np.array(0, np.int8), np.array(0.004, np.float32), qb)
q_attention_case("u8s8_constant", qx, 120, 0.01, qw, np.array(0, np.int8), np.array(0.004, np.float32), qb, constant=True)
colw = rng.uniform(0.002, 0.006, size=3 * ahin).astype(np.float32)
q_attention_case("per_column_mask_causal_constant", qx, 7, 0.01, qw, np.zeros(3 * ahin, np.int8), colw, qb,
                 mask=np.array([5, 2], np.int32), uni=1, constant=True)
q_attention_case("s8u8_zp128", rng.integers(-128, 128, size=(ab, asq, ahin)).astype(np.int8), -3, 0.02,
                 rng.integers(0, 256, size=(ahin, 3 * ahin)).astype(np.uint8), np.array(128, np.uint8),
                 np.array(0.003, np.float32), qb, constant=True)

def rotate(v, c, sn, interleaved):
    v = v.copy()
    half = c.shape[-1]
    if interleaved:
        a, b = v[..., 0:2 * half:2].copy(), v[..., 1:2 * half:2].copy()
        v[..., 0:2 * half:2], v[..., 1:2 * half:2] = a * c - b * sn, b * c + a * sn
    else:
        a, b = v[..., :half].copy(), v[..., half:2 * half].copy()
        v[..., :half], v[..., half:2 * half] = a * c - b * sn, b * c + a * sn
    return v


def gqa(q, k, v, past_k, past_v, seqlens, total, nq, nkv, causal=1, scale=None, softcap=0.0, window=-1, rot=None,
        pos_ids=None, bias=None, sink=None, smooth=False):
    """GroupQueryAttention as its kernel's header states it; returns output, present_key, present_value."""
    bsz, seq, width = q.shape
    if k is None:
        hd = width // (nq + 2 * nkv)
        q, k, v = q[..., :nq * hd], q[..., nq * hd:(nq + nkv) * hd], q[..., (nq + nkv) * hd:]
    else:
        hd = width // nq
    qh, kh, vh = (t.astype(np.float64).reshape(bsz, seq, -1, hd) for t in (q, k, v))
    lp = past_k.shape[2] if past_k is not None else 0
    lpres = max(total, lp)
    first = seq == total
    pk, pv = np.zeros((bsz, nkv, lpres, hd)), np.zeros((bsz, nkv, lpres, hd))
    out = np.zeros((bsz, seq, nq * hd))
    sc = scale if scale is not None else 1 / np.sqrt(hd)
    for b in range(bsz):
        tb = int(seqlens[b]) + 1
        past = 0 if first else tb - seq

        def pos(s):
            if first:
                return (int(pos_ids.flat[0]) if pos_ids is not None else 0) + s
            return int(pos_ids[b, s]) if pos_ids is not None else past + s
        if past:
            pk[b, :, :past], pv[b, :, :past] = past_k[b, :, :past], past_v[b, :, :past]
        for s in range(seq):
            kr = kh[b, s]
            if rot is not None:
                kr = rotate(kr, rot[0][pos(s)], rot[1][pos(s)], rot[2])
            pk[b, :, past + s], pv[b, :, past + s] = kr, vh[b, s]
        for n in range(nq):
            g = n // (nq // nkv)
            for s in range(seq):
                qr = qh[b, s, n]
                if rot is not None:
                    qr = rotate(qr, rot[0][pos(s)], rot[1][pos(s)], rot[2])
                p = past + s
                hi = min(p + 1, tb) if causal else tb
                lo = hi - window if window >= 0 and hi > window else 0
                x = sc * (pk[b, g, lo:hi] @ qr)
                if softcap > 0:
                    x = softcap * np.tanh(x / softcap)
                if bias is not None:
                    x = x + bias[0 if bias.shape[0] == 1 else b, 0 if bias.shape[1] == 1 else n, s, lo:hi]
                sink_logit = sink[n] if sink is not None else (0.0 if smooth else None)
                m = x.max() if sink_logit is None else max(x.max(), sink_logit)
                e = np.exp(x - m)
                denom = e.sum() + (np.exp(sink_logit - m) if sink_logit is not None else 0)
                out[b, s, n * hd:(n + 1) * hd] = (e / denom) @ pv[b, g, lo:hi]
    f = np.float32
    return out.astype(f), pk.astype(f), pv.astype(f)


def gqa_case(name, q, k, v, past_k, past_v, seqlens, total, nq, nkv, rot=None, pos_ids=None, bias=None, sink=None,
             **attrs):
    y, pk, pv = gqa(q, k, v, past_k, past_v, seqlens, total, nq, nkv, causal=attrs.get("causal", 1),
                    scale=attrs.get("scale"), softcap=attrs.get("softcap", 0.0), window=attrs.get("local_window_size", -1),
                    rot=rot, pos_ids=pos_ids, bias=bias, sink=sink, smooth=attrs.get("smooth_softmax", 0) == 1)
    ins = [("query", q), ("key", k), ("value", v), ("past_key", past_k), ("past_value", past_v),
           ("seqlens_k", np.asarray(seqlens, np.int32)), ("total_sequence_length", np.array(total, np.int32)),
           ("cos_cache", rot[0] if rot else None), ("sin_cache", rot[1] if rot else None), ("position_ids", pos_ids),
           ("attention_bias", bias), ("head_sink", sink)]
    if rot:
        attrs["do_rotary"] = 1
        attrs["rotary_interleaved"] = int(rot[2])
    w.case(f"gqa_{name}", "GroupQueryAttention", ins, [("output", y), ("present_key", pk), ("present_value", pv)],
           domain="com.microsoft", extra_opsets=MS, num_heads=nq, kv_num_heads=nkv, **attrs)


# GroupQueryAttention: a packed first prompt with a right-padded batch item, a decode step on
# a past cache (separate Q/K/V), rotary (both pairings; positions from position_ids), a local
# window with softcap, attention_bias and head_sink, smooth softmax without causality.
gb, gs, gh, gnq, gnkv = 2, 4, 8, 4, 2
packed_q = rnd(gb, gs, (gnq + 2 * gnkv) * gh) * 0.5
gqa_case("prompt_packed_padded", packed_q, None, None, None, None, [3, 1], gs, gnq, gnkv)
glp = 6
pkc, pvc = rnd(gb, gnkv, glp, gh) * 0.5, rnd(gb, gnkv, glp, gh)
q1, k1, v1 = rnd(gb, 1, gnq * gh) * 0.5, rnd(gb, 1, gnkv * gh) * 0.5, rnd(gb, 1, gnkv * gh)
gqa_case("decode_past", q1, k1, v1, pkc, pvc, [6, 3], 7, gnq, gnkv)
cosc, sinc = np.cos(rng.uniform(0, 3, (16, 3))).astype(np.float32), np.sin(rng.uniform(0, 3, (16, 3))).astype(np.float32)
gqa_case("prompt_rotary_halves", packed_q, None, None, None, None, [3, 3], gs, gnq, gnkv, rot=(cosc, sinc, False))
gqa_case("decode_rotary_interleaved_positions", q1, k1, v1, pkc, pvc, [5, 2], 6, gnq, gnkv, rot=(cosc, sinc, True),
         pos_ids=np.array([[9], [4]], np.int64))
qs, ks, vs = rnd(gb, gs, gnq * gh), rnd(gb, gs, gnkv * gh), rnd(gb, gs, gnkv * gh)
gqa_case("window_softcap_bias_sink", qs, ks, vs, None, None, [3, 3], gs, gnq, gnkv, bias=rnd(1, gnq, gs, gs),
         sink=rnd(gnq), local_window_size=2, softcap=1.5)
gqa_case("smooth_not_causal_scale", qs, ks, vs, None, None, [3, 2], gs, gnq, gnkv, causal=0, smooth_softmax=1, scale=0.2)
w.bad("gqa_seqlens_beyond_total", "GroupQueryAttention",
      [("query", q1), ("key", k1), ("value", v1), ("past_key", pkc), ("past_value", pvc),
       ("seqlens_k", np.array([9, 3], np.int32)), ("total_sequence_length", np.array(7, np.int32))],
      [("output", TP.FLOAT)], "does not fit total_sequence_length", domain="com.microsoft", extra_opsets=MS,
      num_heads=gnq, kv_num_heads=gnkv)

# Prompts of 16 rows or more take the kernel's product path (rows in blocks of 16): a padded
# packed prompt with rotary (40 rows, one item of 29), a chunk of 20 rows on a past, a window
# with softcap and bias (no sink), and a non-causal prompt with its own scale.
lb, ls = 2, 40
long_q = rnd(lb, ls, (gnq + 2 * gnkv) * gh) * 0.5
lcos, lsin = np.cos(rng.uniform(0, 3, (64, 3))).astype(np.float32), np.sin(rng.uniform(0, 3, (64, 3))).astype(np.float32)
gqa_case("long_prompt_rotary_padded", long_q, None, None, None, None, [39, 28], ls, gnq, gnkv, rot=(lcos, lsin, False))
cpk, cpv = rnd(lb, gnkv, 50, gh) * 0.5, rnd(lb, gnkv, 50, gh)
cq, ck, cv = rnd(lb, 20, gnq * gh) * 0.5, rnd(lb, 20, gnkv * gh) * 0.5, rnd(lb, 20, gnkv * gh)
gqa_case("chunk_on_past", cq, ck, cv, cpk, cpv, [44, 29], 45, gnq, gnkv)
wq, wk, wv = rnd(lb, 24, gnq * gh), rnd(lb, 24, gnkv * gh), rnd(lb, 24, gnkv * gh)
gqa_case("long_window_softcap_bias", wq, wk, wv, None, None, [23, 17], 24, gnq, gnkv, bias=rnd(lb, 1, 24, 24),
         local_window_size=7, softcap=2.0)
gqa_case("long_not_causal_scale", wq[:, :18], wk[:, :18], wv[:, :18], None, None, [17, 11], 18, gnq, gnkv, causal=0,
         scale=0.3)

w.done()
