#!/usr/bin/python3
"""Kernel cases for ai.onnx Attention (opsets 23, 24 and 25): 3-D and 4-D Q/K/V, GQA and MQA,
bool and float masks (broadcast, shorter than the keys, fully masked rows), is_causal, scale,
softcap, the key/value cache (past in, present out), nonpad_kv_seqlen, the opset-25 windows,
every qk_matmul_output mode, softmax_precision, float16, bfloat16 and double; query blocks
long enough for the kernel's blocked path; and bad input that must be refused by name.

Expected outputs come from attention_reference below (float64 numpy written from the op's
specification), rounded to the output type.

Usage: gen_attention.py OUT_DIR (see kcase.py for the layout)."""
import os
import tempfile

import numpy as np
from onnx import TensorProto as TP
from onnx import helper

from kcase import Writer, model, to_proto, value_info

w = Writer()
rng = np.random.default_rng(2323)
rnd = lambda *s: rng.standard_normal(s).astype(np.float32)
NEG_INF = -np.inf


def attention_reference(q, k, v, mask=None, past_k=None, past_v=None, nonpad=None, scale=None, causal=0,
                        q_heads=None, kv_heads=None, softcap=0.0, qk_mode=0, left=-1, right=-1, precision=None):
    """Y, present_key, present_value, qk_matmul_output in float64, per the spec's definition."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    three_d = q.ndim == 3
    if three_d:  # [B, S, H*D] -> [B, H, S, D]
        split = lambda a, h: a.reshape(a.shape[0], a.shape[1], h, -1).transpose(0, 2, 1, 3)
        q, k, v = split(q, q_heads), split(k, kv_heads), split(v, kv_heads)
    b, hq, s, d = q.shape
    hkv = k.shape[1]
    if past_k is not None:
        k = np.concatenate([np.asarray(past_k, np.float64), k], axis=2)
        v = np.concatenate([np.asarray(past_v, np.float64), v], axis=2)
    t = k.shape[2]
    present_k, present_v = k, v
    scale = 1 / np.sqrt(d) if scale is None else scale
    kk = np.repeat(k, hq // hkv, axis=1)
    vv = np.repeat(v, hq // hkv, axis=1)
    x = np.einsum("bnsd,bntd->bnst", q, kk) * scale
    qk = {0: x.copy()}
    if softcap > 0:
        x = softcap * np.tanh(x / softcap)
    qk[1] = x.copy()
    # The bias: the mask (bool -> 0 / -inf, padded with -inf to T keys), then the structural
    # limits (causal, window, padding) as -inf.
    bias = np.zeros((b, hq, s, t))
    if mask is not None:
        m = np.asarray(mask)
        m = np.where(m, 0.0, NEG_INF) if m.dtype == np.bool_ else m.astype(np.float64)
        m = np.concatenate([m, np.full(m.shape[:-1] + (t - m.shape[-1],), NEG_INF)], axis=-1)
        bias = bias + m
    if past_k is not None:
        offset = np.full(b, past_k.shape[2])
    elif nonpad is not None:
        offset = np.asarray(nonpad) - s
    else:
        offset = np.zeros(b, np.int64)
    pos = np.arange(s)[None, :, None] + offset[:, None, None]  # [B, S, 1]
    j = np.arange(t)[None, None, :]
    allowed = np.ones((b, s, t), bool)
    if causal:
        allowed &= j <= pos
    if left >= 0:
        allowed &= j >= pos - left
    if right >= 0:
        allowed &= j <= pos + right
    if nonpad is not None:
        allowed &= j < np.asarray(nonpad)[:, None, None]
    bias = bias + np.where(allowed, 0.0, NEG_INF)[:, None]
    x = x + bias
    qk[2] = x.copy()
    if precision == TP.FLOAT16:
        x = x.astype(np.float16).astype(np.float64)
    masked = np.all(bias == NEG_INF, axis=-1, keepdims=True)
    mx = np.where(masked, 0, np.max(np.where(np.isneginf(x), -1e300, x), axis=-1, keepdims=True))
    e = np.where(np.isneginf(x), 0, np.exp(x - mx))
    p = np.where(masked, 0, e / np.where(masked, 1, e.sum(axis=-1, keepdims=True)))
    if precision == TP.FLOAT16:
        p = p.astype(np.float16).astype(np.float64)
    qk[3] = p
    y = np.einsum("bnst,bntd->bnsd", p, vv)
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(b, s, -1)
    return y, present_k, present_v, qk[qk_mode]


def attention_case(name, q, k, v, mask=None, past_k=None, past_v=None, nonpad=None, opset=23, outputs=("Y",),
                   **attrs):
    """One Attention node; `outputs` names which of Y, present_key, present_value,
    qk_matmul_output the node produces (the others left unnamed)."""
    ref_attrs = dict(scale=attrs.get("scale"), causal=attrs.get("is_causal", 0), q_heads=attrs.get("q_num_heads"),
                     kv_heads=attrs.get("kv_num_heads"), softcap=attrs.get("softcap", 0.0),
                     qk_mode=attrs.get("qk_matmul_output_mode", 0), left=attrs.get("left_window_size", -1),
                     right=attrs.get("right_window_size", -1), precision=attrs.get("softmax_precision"))
    y, pk, pv, qk = attention_reference(q, k, v, mask, past_k, past_v, nonpad, **ref_attrs)
    expected = {"Y": y.astype(q.dtype), "present_key": pk.astype(k.dtype), "present_value": pv.astype(v.dtype),
                "qk_matmul_output": qk.astype(q.dtype)}
    inputs = [("Q", q), ("K", k), ("V", v), ("attn_mask", mask), ("past_key", past_k), ("past_value", past_v),
              ("nonpad_kv_seqlen", nonpad)]
    while inputs[-1][1] is None:
        inputs.pop()
    in_names = [n if a is not None else "" for n, a in inputs]
    all_outs = ["Y", "present_key", "present_value", "qk_matmul_output"]
    out_names = [n if n in outputs else "" for n in all_outs]
    while out_names[-1] == "":
        out_names.pop()
    node = helper.make_node("Attention", in_names, out_names, **attrs)
    gin = [value_info(n, a) for n, a in inputs if a is not None]
    gout = [value_info(n, expected[n]) for n in out_names if n]
    m = model([node], gin, gout, opset=opset)
    w.model_case(name, m, [a for _, a in inputs if a is not None], [expected[n] for n in out_names if n])


def attention_bad(name, q, k, v, error, mask=None, past_k=None, past_v=None, nonpad=None, opset=24, **attrs):
    inputs = [("Q", q), ("K", k), ("V", v), ("attn_mask", mask), ("past_key", past_k), ("past_value", past_v),
              ("nonpad_kv_seqlen", nonpad)]
    while inputs[-1][1] is None:
        inputs.pop()
    node = helper.make_node("Attention", [n if a is not None else "" for n, a in inputs], ["Y"], **attrs)
    m = model([node], [value_info(n, a) for n, a in inputs if a is not None],
              [helper.make_tensor_value_info("Y", TP.FLOAT, None)], opset=opset)
    w.model_bad(name, m, [a for _, a in inputs if a is not None], error)


# 4-D multi-head: plain, scaled, float mask [S, T], value head size unlike the key's.
q, k, v = rnd(2, 3, 5, 8), rnd(2, 3, 7, 8), rnd(2, 3, 7, 6)
attention_case("mha_4d", q, k, v)
attention_case("mha_4d_scaled", q, k, v, scale=0.3)
attention_case("mha_4d_float_mask", q, k, v, mask=rnd(5, 7))
attention_case("mha_4d_causal_mask_4d", q, k, v, mask=rnd(2, 3, 5, 7), is_causal=1)
# Head-broadcast [B, 1, S, T] and rank-3 [H, S, T] masks; a mask shorter than the keys.
attention_case("mha_4d_mask_b1st", q, k, v, mask=rnd(2, 1, 5, 7))
attention_case("mha_4d_mask_rank3", q, k, v, mask=rnd(3, 5, 7))
attention_case("mha_4d_mask_short", q, k, v, mask=rnd(5, 4), opset=24)

# 3-D with head attributes: GQA (6 query heads on 2 key/value heads), MQA, causal, softcap.
q3, k3, v3 = rnd(2, 5, 6 * 4), rnd(2, 9, 2 * 4), rnd(2, 9, 2 * 3)
attention_case("gqa_3d", q3, k3, v3, q_num_heads=6, kv_num_heads=2)
attention_case("gqa_3d_causal_softcap", q3 * 3, k3, v3, q_num_heads=6, kv_num_heads=2, is_causal=1, softcap=1.5)
attention_case("mqa_3d_bool_mask", q3, rnd(2, 9, 4), rnd(2, 9, 5), mask=rng.random((5, 9)) > 0.3, q_num_heads=6,
               kv_num_heads=1)

# Bool masks with a fully masked row: Y's row and the mode-3 probabilities are zero.
bm = rng.random((2, 1, 5, 7)) > 0.4
bm[0, 0, 1, :] = False
bm[1, 0, 4, :] = False
attention_case("bool_mask_fully_masked_rows", q, k, v, mask=bm, outputs=("Y", "", "", "qk_matmul_output"),
               qk_matmul_output_mode=3)
fm = rnd(5, 7)
fm[2, :] = -np.inf
attention_case("float_mask_neginf_row", q, k, v, mask=fm, is_causal=1)

# The qk_matmul_output modes, with softcap (0: before it, 1: after, 2: plus the bias, 3: softmax).
for mode in range(4):
    attention_case(f"qk_output_mode{mode}_softcap", q, k, v, mask=rnd(1, 3, 5, 7), softcap=2.0, is_causal=1,
                   outputs=("Y", "", "", "qk_matmul_output"), qk_matmul_output_mode=mode)

# The key/value cache: past in, present out (3-D and 4-D, GQA, causal at offset P, qk output).
pk, pv = rnd(2, 2, 6, 4), rnd(2, 2, 6, 3)
attention_case("cache_3d_gqa_causal", q3, k3, v3, past_k=pk, past_v=pv, q_num_heads=6, kv_num_heads=2, is_causal=1,
               outputs=("Y", "present_key", "present_value", "qk_matmul_output"), qk_matmul_output_mode=2)
attention_case("cache_4d_mask", q, k, v, mask=rnd(5, 13), past_k=rnd(2, 3, 6, 8), past_v=rnd(2, 3, 6, 6),
               outputs=("Y", "present_key", "present_value"))
attention_case("cache_4d_decode", rnd(3, 4, 1, 8), rnd(3, 2, 1, 8), rnd(3, 2, 1, 8), past_k=rnd(3, 2, 20, 8),
               past_v=rnd(3, 2, 20, 8), is_causal=1, outputs=("Y", "present_key", "present_value"))

# nonpad_kv_seqlen (opset 24): an external cache, causal frontier at nonpad - S; decode and a
# negative offset (leading rows see nothing).
attention_case("nonpad_decode_gqa", rnd(3, 4, 1, 8), rnd(3, 2, 10, 8), rnd(3, 2, 10, 8),
               nonpad=np.array([3, 10, 7], np.int64), opset=24, is_causal=1)
attention_case("nonpad_prefill_mask", rnd(2, 2, 3, 8), rnd(2, 2, 8, 8), rnd(2, 2, 8, 8), mask=rng.random((3, 8)) > 0.2,
               nonpad=np.array([2, 6], np.int64), opset=24, is_causal=1)

# Windows (opset 25): causal left-looking, bidirectional, with a past and with nonpad.
attention_case("window_causal_left2", q, k, v, opset=25, is_causal=1, left_window_size=2)
attention_case("window_bidirectional", q, k, v, opset=25, left_window_size=1, right_window_size=2)
attention_case("window_with_past", rnd(2, 3, 4, 8), rnd(2, 3, 2, 8), rnd(2, 3, 2, 8), past_k=rnd(2, 3, 8, 8),
               past_v=rnd(2, 3, 8, 8), opset=25, is_causal=1, left_window_size=3,
               outputs=("Y", "present_key", "present_value"))
attention_case("window_nonpad_mask", rnd(2, 3, 4, 8), rnd(2, 3, 8, 8), rnd(2, 3, 8, 8), mask=rnd(3, 4, 8),
               nonpad=np.array([5, 8], np.int64), opset=25, is_causal=1, left_window_size=2)

# Long query blocks (the blocked path: 16 rows at a time, a tail of 5), GQA, causal, with a past.
ql, kl, vl = rnd(2, 4, 37, 16), rnd(2, 2, 37, 16), rnd(2, 2, 37, 12)
attention_case("long_gqa_causal", ql, kl, vl, is_causal=1)
attention_case("long_gqa_causal_past_mask", ql, kl, vl, mask=rnd(2, 1, 37, 50), past_k=rnd(2, 2, 13, 16),
               past_v=rnd(2, 2, 13, 12), is_causal=1, outputs=("Y", "present_key", "present_value"))
attention_case("long_window_qk", ql, kl, vl, opset=25, is_causal=1, left_window_size=7,
               outputs=("Y", "", "", "qk_matmul_output"), qk_matmul_output_mode=3)
attention_case("long_3d_bool_mask", rnd(1, 40, 3 * 8), rnd(1, 40, 8), rnd(1, 40, 8), mask=rng.random((40, 40)) > 0.5,
               q_num_heads=3, kv_num_heads=1)

# softmax_precision: float16 rounding of the scores and probabilities, and double.
attention_case("softmax_precision_f16", q, k, v, mask=rnd(5, 7), opset=24, softmax_precision=TP.FLOAT16)
attention_case("softmax_precision_f64", q, k, v, is_causal=1, opset=24, softmax_precision=TP.DOUBLE)

# float16 and double inputs (float16 computed in float32, compared after rounding).
qh, kh, vh = (a.astype(np.float16) for a in (q, k, v))
attention_case("mha_4d_f16_causal", qh, kh, vh, mask=rnd(5, 7).astype(np.float16), is_causal=1)
attention_case("cache_3d_f16", q3.astype(np.float16), k3.astype(np.float16), v3.astype(np.float16),
               past_k=pk.astype(np.float16), past_v=pv.astype(np.float16), q_num_heads=6, kv_num_heads=2,
               outputs=("Y", "present_key", "present_value"))
attention_case("long_f16", ql.astype(np.float16), kl.astype(np.float16), vl.astype(np.float16), is_causal=1)
attention_case("mha_4d_f64", q.astype(np.float64), k.astype(np.float64), v.astype(np.float64),
               mask=rnd(2, 3, 5, 7).astype(np.float64), is_causal=1, softcap=1.0,
               outputs=("Y", "", "", "qk_matmul_output"), qk_matmul_output_mode=2)
attention_case("long_f64_past", ql.astype(np.float64), kl.astype(np.float64), vl.astype(np.float64),
               past_k=rnd(2, 2, 5, 16).astype(np.float64), past_v=rnd(2, 2, 5, 12).astype(np.float64), is_causal=1,
               outputs=("Y", "present_key", "present_value"))


# bfloat16 (no numpy type: written as bits). K = 0 makes every seen key weigh alike, so with
# two keys seen per row (the mask) and integer values Y is exact in bfloat16.
def bf16_proto(name, a):
    bits = (np.asarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return helper.make_tensor(name, TP.BFLOAT16, a.shape, bits.tobytes(), raw=True)


qb, kb = rnd(1, 2, 3, 4), np.zeros((1, 2, 4, 4), np.float32)
vb = rng.integers(-8, 8, (1, 2, 4, 4)).astype(np.float32)
mb = np.array([[True, False, True, False], [False, True, True, False], [True, True, False, False]])
yb = attention_reference(qb, kb, vb, mb)[0].astype(np.float32)
assert np.array_equal((yb.view(np.uint32) >> 16 << 16).view(np.float32), yb)
node = helper.make_node("Attention", ["Q", "K", "V", "attn_mask"], ["Y", "present_key", "present_value"])
vi = lambda n, a, t=TP.BFLOAT16: helper.make_tensor_value_info(n, t, list(a.shape))
m = model([node], [vi("Q", qb), vi("K", kb), vi("V", vb), vi("attn_mask", mb, TP.BOOL)],
          [vi("Y", yb), vi("present_key", kb), vi("present_value", vb)], opset=23)
with tempfile.TemporaryDirectory() as tmp:
    files = []
    for n, proto in [("in0", bf16_proto("Q", qb)), ("in1", bf16_proto("K", kb)), ("in2", bf16_proto("V", vb)),
                     ("in3", to_proto(mb, "attn_mask")), ("out0", bf16_proto("Y", yb)),
                     ("out1", bf16_proto("present_key", kb)), ("out2", bf16_proto("present_value", vb))]:
        files.append(os.path.join(tmp, n + ".pb"))
        with open(files[-1], "wb") as f:
            f.write(proto.SerializeToString())
    w.copy_case("bf16_uniform_weights", m, files[:4], files[4:])

# Bad input: head counts, shapes, masks, caches, nonpad values, types, attributes.
attention_bad("bad_heads_not_multiple", rnd(1, 3, 2, 4), rnd(1, 2, 2, 4), rnd(1, 2, 2, 4), "not a multiple")
attention_bad("bad_3d_hidden_not_divisible", rnd(1, 2, 10), rnd(1, 2, 8), rnd(1, 2, 8), "are not [B, S, 4 * D]",
              q_num_heads=4, kv_num_heads=2)
attention_bad("bad_3d_without_heads", rnd(1, 2, 8), rnd(1, 2, 8), rnd(1, 2, 8), "need the q_num_heads")
attention_bad("bad_4d_heads_disagree", rnd(1, 2, 2, 4), rnd(1, 2, 2, 4), rnd(1, 2, 2, 4), "disagree",
              q_num_heads=4, kv_num_heads=2)
attention_bad("bad_key_head_size", rnd(1, 2, 2, 4), rnd(1, 2, 2, 5), rnd(1, 2, 2, 4), "are not [B, Hq, S, D]")
attention_bad("bad_value_length", rnd(1, 2, 2, 4), rnd(1, 2, 3, 4), rnd(1, 2, 2, 4), "one key length")
attention_bad("bad_ranks", rnd(1, 2, 2, 4), rnd(1, 2, 8), rnd(1, 2, 8), "must all be 3-D or all 4-D")
attention_bad("bad_mask_rows", rnd(1, 2, 3, 4), rnd(1, 2, 5, 4), rnd(1, 2, 5, 4), "does not broadcast",
              mask=rnd(2, 5))
attention_bad("bad_mask_too_long", rnd(1, 2, 3, 4), rnd(1, 2, 5, 4), rnd(1, 2, 5, 4), "does not broadcast",
              mask=rnd(3, 6))
attention_bad("bad_mask_heads", rnd(1, 2, 3, 4), rnd(1, 2, 5, 4), rnd(1, 2, 5, 4), "does not broadcast",
              mask=rnd(1, 3, 3, 5))
attention_bad("bad_mask_int32", rnd(1, 2, 3, 4), rnd(1, 2, 5, 4), rnd(1, 2, 5, 4), "attn_mask",
              mask=np.zeros((3, 5), np.int32))
attention_bad("bad_past_shape", rnd(1, 2, 3, 4), rnd(1, 2, 5, 4), rnd(1, 2, 5, 4), "past_key",
              past_k=rnd(1, 2, 6, 3), past_v=rnd(1, 2, 6, 4))
attention_bad("bad_nonpad_range", rnd(2, 2, 1, 4), rnd(2, 2, 5, 4), rnd(2, 2, 5, 4), "nonpad_kv_seqlen[1] = 6",
              nonpad=np.array([2, 6], np.int64))
attention_bad("bad_nonpad_shape", rnd(2, 2, 1, 4), rnd(2, 2, 5, 4), rnd(2, 2, 5, 4), "nonpad_kv_seqlen",
              nonpad=np.array([2], np.int64))
attention_bad("bad_mixed_qk_types", rnd(1, 2, 3, 4), rnd(1, 2, 5, 4).astype(np.float16), rnd(1, 2, 5, 4),
              "share one element type")
attention_bad("bad_qk_mode", rnd(1, 2, 3, 4), rnd(1, 2, 5, 4), rnd(1, 2, 5, 4), "qk_matmul_output_mode",
              qk_matmul_output_mode=4)
attention_bad("bad_window_before_25", rnd(1, 2, 3, 4), rnd(1, 2, 5, 4), rnd(1, 2, 5, 4), "needs opset 25",
              left_window_size=2)
attention_bad("bad_softmax_precision", rnd(1, 2, 3, 4), rnd(1, 2, 5, 4), rnd(1, 2, 5, 4), "softmax_precision",
              softmax_precision=TP.INT32)

w.done()
