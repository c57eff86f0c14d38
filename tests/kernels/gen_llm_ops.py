#!/usr/bin/python3
"""Kernel cases for the ai.onnx ops of recent opsets that LLM graphs use: RMSNormalization
(23), RotaryEmbedding (23), SwiGLU (28), Swish (24), TensorScatter (24), LinearAttention (27),
CausalConvWithState (27), and ai.onnx.preview FlexAttention (1, with score_mod / prob_mod
graphs). References are numpy code written from the ops' ONNX definitions (the schemas'
documentation), computed in float64 and rounded to the output type.

Usage: gen_llm_ops.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

from kcase import Writer, model, value_info

w = Writer()
rng = np.random.default_rng(2323)
rnd = lambda *s: (rng.standard_normal(s) * 1.5).astype(np.float32)


# ---------------------------------------------------------------- RMSNormalization (23)
def rms_norm(x, scale, axis=-1, eps=1e-5):
    x64 = x.astype(np.float64)
    axis = axis % x.ndim
    ms = np.mean(x64 * x64, axis=tuple(range(axis, x.ndim)), keepdims=True)
    return x64 / np.sqrt(ms + eps) * scale.astype(np.float64)


def rms_case(name, x, scale, out_type=None, **attrs):
    y = rms_norm(x, scale, attrs.get("axis", -1), attrs.get("epsilon", 1e-5))
    w.case(name, "RMSNormalization", [("X", x), ("scale", scale)], [("Y", y.astype(out_type or scale.dtype))],
           opset=23, **attrs)


x = rnd(3, 5, 40)
rms_case("rms_norm_last", x, rnd(40))
rms_case("rms_norm_axis1", x, rnd(5, 40), axis=1)
rms_case("rms_norm_axis0_eps", x, rnd(3, 5, 40), axis=0, epsilon=0.25)
rms_case("rms_norm_axis_neg2", x, rnd(5, 40), axis=-2)
rms_case("rms_norm_scale_bcast_cols", x, rnd(1, 40), axis=1)  # (1, 40) stretched over (5, 40)
rms_case("rms_norm_scale_leading_ones", x, rnd(1, 1, 40))
rms_case("rms_norm_scale_per_row", x, rnd(3, 1, 1), axis=2)  # varies along a dim before axis
rms_case("rms_norm_scale_scalar", x, np.array(1.75, np.float32))
rms_case("rms_norm_long_rows", rnd(4, 1037), rnd(1037))
rms_case("rms_norm_1d", rnd(17), rnd(17), axis=0)
rms_case("rms_norm_f16", x.astype(np.float16), rnd(40).astype(np.float16))
rms_case("rms_norm_f64", x.astype(np.float64), rnd(40).astype(np.float64), axis=1 - 3)
rms_case("rms_norm_stash_double", x, rnd(40), stash_type=11)
rms_case("rms_norm_f16_x_f32_scale", x.astype(np.float16), rnd(40))  # Y has Scale's type
rms_case("rms_norm_empty_rows", np.zeros((0, 8), np.float32), rnd(8))
rms_case("rms_norm_zeros", np.zeros((2, 8), np.float32), rnd(8))  # 0 / sqrt(eps) = 0
w.bad("rms_norm_bad_scale", "RMSNormalization", [("X", x), ("scale", rnd(39))], [("Y", TP.FLOAT)],
      "does not broadcast", opset=23)
w.bad("rms_norm_bad_scale_rank", "RMSNormalization", [("X", rnd(4)), ("scale", rnd(1, 4))], [("Y", TP.FLOAT)],
      "higher rank", opset=23)
w.bad("rms_norm_bad_axis", "RMSNormalization", [("X", x), ("scale", rnd(40))], [("Y", TP.FLOAT)], "axis",
      opset=23, axis=3)
w.bad("rms_norm_bad_stash", "RMSNormalization", [("X", x), ("scale", rnd(40))], [("Y", TP.FLOAT)], "stash_type",
      opset=23, stash_type=10)


# ---------------------------------------------------------------- RotaryEmbedding (23)
def rope(x, cos_c, sin_c, pos=None, interleaved=0, rot=0, num_heads=0):
    """x (B, N, S, H) or (B, S, N*H); caches indexed by pos (B, S) or already (B, S, rot/2)."""
    x64 = x.astype(np.float64)
    v = x64.reshape(x.shape[0], x.shape[1], num_heads, -1) if x.ndim == 3 else x64.transpose(0, 2, 1, 3)
    rot = rot or v.shape[-1]
    c = (cos_c[pos] if pos is not None else cos_c).astype(np.float64)[:, :, None, :]
    s = (sin_c[pos] if pos is not None else sin_c).astype(np.float64)[:, :, None, :]
    out = v.copy()
    lo, hi = (slice(0, rot, 2), slice(1, rot, 2)) if interleaved else (slice(0, rot // 2), slice(rot // 2, rot))
    a, b = v[..., lo], v[..., hi]
    out[..., lo], out[..., hi] = a * c - b * s, a * s + b * c
    return out.reshape(x.shape) if x.ndim == 3 else out.transpose(0, 2, 1, 3)


def rope_case(name, x, cos_c, sin_c, pos=None, **attrs):
    y = rope(x, cos_c, sin_c, pos, attrs.get("interleaved", 0), attrs.get("rotary_embedding_dim", 0),
             attrs.get("num_heads", 0))
    w.case(name, "RotaryEmbedding", [("X", x), ("cos_cache", cos_c), ("sin_cache", sin_c), ("position_ids", pos)],
           [("Y", y.astype(x.dtype))], opset=23, **attrs)


B, N, S, H, MAXP = 2, 3, 5, 16, 40
freq = 1.0 / 10000 ** (np.arange(H // 2) * 2 / H)
ang = np.arange(MAXP)[:, None] * freq[None, :]
cos_t, sin_t = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
pos = rng.integers(0, MAXP, size=(B, S)).astype(np.int64)
x4, x3 = rnd(B, N, S, H), rnd(B, S, N * H)
for inter in (0, 1):
    rope_case(f"rope_bnsh_i{inter}", x4, cos_t, sin_t, pos, interleaved=inter)
    rope_case(f"rope_3d_i{inter}", x3, cos_t, sin_t, pos, interleaved=inter, num_heads=N)
    rope_case(f"rope_partial_i{inter}", x4, cos_t[:, :3].copy(), sin_t[:, :3].copy(), pos, interleaved=inter,
              rotary_embedding_dim=6)
    rope_case(f"rope_no_pos_i{inter}", x3, cos_t[pos], sin_t[pos], None, interleaved=inter, num_heads=N)
rope_case("rope_no_pos_partial", x4, cos_t[pos][..., :4].copy(), sin_t[pos][..., :4].copy(), None,
          rotary_embedding_dim=8)
rope_case("rope_f16", x4.astype(np.float16), cos_t.astype(np.float16), sin_t.astype(np.float16), pos)
rope_case("rope_empty_seq", np.zeros((B, N, 0, H), np.float32), cos_t, sin_t, np.zeros((B, 0), np.int64))
w.bad("rope_bad_position", "RotaryEmbedding", [("X", x4), ("cos_cache", cos_t), ("sin_cache", sin_t),
                                               ("position_ids", np.full((B, S), MAXP, np.int64))], [("Y", TP.FLOAT)],
      "outside the caches", opset=23)
w.bad("rope_bad_cache_width", "RotaryEmbedding", [("X", x4), ("cos_cache", cos_t[:, :5].copy()),
                                                  ("sin_cache", sin_t[:, :5].copy()), ("position_ids", pos)],
      [("Y", TP.FLOAT)], "caches must be", opset=23)
w.bad("rope_bad_no_heads", "RotaryEmbedding", [("X", x3), ("cos_cache", cos_t), ("sin_cache", sin_t),
                                               ("position_ids", pos)], [("Y", TP.FLOAT)], "needs num_heads", opset=23)
w.bad("rope_bad_odd_rot", "RotaryEmbedding", [("X", x4), ("cos_cache", cos_t), ("sin_cache", sin_t),
                                              ("position_ids", pos)], [("Y", TP.FLOAT)], "must be even", opset=23,
      rotary_embedding_dim=5)
w.bad("rope_bad_no_pos_cache", "RotaryEmbedding", [("X", x4), ("cos_cache", cos_t), ("sin_cache", sin_t)],
      [("Y", TP.FLOAT)], "without position_ids", opset=23)


# ---------------------------------------------------------------- Swish (24), SwiGLU (28)
def swish(a, alpha=1.0):
    a64 = a.astype(np.float64)
    return a64 / (1 + np.exp(-alpha * a64))


for name, shape in [("vec", (7,)), ("tail", (3, 37)), ("big", (5, 4099)), ("empty", (0, 4))]:
    a, b = rnd(*shape), rnd(*shape)
    w.case(f"swish_{name}", "Swish", [("X", a)], [("Y", swish(a).astype(np.float32))], opset=24)
    w.case(f"swiglu_{name}", "SwiGLU", [("A", a), ("B", b)], [("Y", (swish(a) * b).astype(np.float32))], opset=28)
a, b = rnd(6, 33), rnd(6, 33)
ext = np.array([-200, -90, -30, -1, 0, 1, 30, 90, 200], np.float32)
w.case("swish_alpha", "Swish", [("X", a)], [("Y", swish(a, 0.5).astype(np.float32))], opset=24, alpha=0.5)
w.case("swish_extremes", "Swish", [("X", ext)], [("Y", swish(ext).astype(np.float32))], opset=24)
w.case("swish_f16", "Swish", [("X", a.astype(np.float16))], [("Y", swish(a.astype(np.float16)).astype(np.float16))],
       opset=24)
w.case("swish_f64", "Swish", [("X", a.astype(np.float64))], [("Y", swish(a.astype(np.float64), 2.0))], opset=24,
       alpha=2.0)
w.case("swiglu_alpha", "SwiGLU", [("A", a), ("B", b)], [("Y", (swish(a, 1.702) * b).astype(np.float32))], opset=28,
       alpha=1.702)
w.case("swiglu_extremes", "SwiGLU", [("A", ext), ("B", ext[::-1].copy())],
       [("Y", (swish(ext) * ext[::-1]).astype(np.float32))], opset=28)
ah, bh = a.astype(np.float16), b.astype(np.float16)
w.case("swiglu_f16", "SwiGLU", [("A", ah), ("B", bh)], [("Y", (swish(ah) * bh).astype(np.float16))], opset=28)
w.case("swiglu_f64", "SwiGLU", [("A", a.astype(np.float64)), ("B", b.astype(np.float64))],
       [("Y", swish(a.astype(np.float64)) * b)], opset=28)
w.bad("swiglu_bad_shape", "SwiGLU", [("A", a), ("B", rnd(1, 33))], [("Y", TP.FLOAT)], "no broadcasting", opset=28)
w.bad("swiglu_bad_type", "SwiGLU", [("A", a), ("B", bh)], [("Y", TP.FLOAT)], "one shape and type", opset=28)


# ---------------------------------------------------------------- TensorScatter (24)
def tensor_scatter(past, update, wi=None, axis=-2, mode="linear"):
    out = past.copy()
    axis %= past.ndim
    maxs, seq = past.shape[axis], update.shape[axis]
    wi = np.zeros(past.shape[0], np.int64) if wi is None else wi
    for p in np.ndindex(*past.shape[:axis]):
        for s in range(seq):
            row = wi[p[0]] + s
            out[p + ((row % maxs) if mode == "circular" else row,)] = update[p + (s,)]
    return out


def ts_case(name, past, update, wi=None, **attrs):
    y = tensor_scatter(past, update, wi, attrs.get("axis", -2), attrs.get("mode", "linear"))
    w.case(name, "TensorScatter", [("past_cache", past), ("update", update), ("write_indices", wi)],
           [("present_cache", y)], opset=24, **attrs)


past = rnd(3, 2, 8, 4)
ts_case("tscatter_prefill", past, rnd(3, 2, 5, 4))
ts_case("tscatter_decode", past, rnd(3, 2, 1, 4), np.array([0, 7, 3], np.int64), mode="linear")
ts_case("tscatter_full", past, rnd(3, 2, 8, 4), np.zeros(3, np.int64))
ts_case("tscatter_circular_wrap", past, rnd(3, 2, 3, 4), np.array([6, 7, 20], np.int64), mode="circular")
ts_case("tscatter_circular_negative", past, rnd(3, 2, 2, 4), np.array([-1, -9, 0], np.int64), mode="circular")
ts_case("tscatter_circular_full", past, rnd(3, 2, 8, 4), np.array([5, 0, 3], np.int64), mode="circular")
ts_case("tscatter_3d_axis1", rnd(2, 6, 5), rnd(2, 2, 5), np.array([1, 4], np.int64), axis=1)
ts_case("tscatter_last_axis", rnd(2, 3, 6), rnd(2, 3, 2), np.array([4, 0], np.int64), axis=-1)
ts_case("tscatter_int64", rng.integers(0, 99, (2, 5, 3)).astype(np.int64), rng.integers(0, 99, (2, 2, 3)),
        np.array([3, 1], np.int64))
ts_case("tscatter_string", np.array([[["a"], ["b"], ["c"], ["d"]]], object), np.array([[["x"], ["y"]]], object),
        np.array([3], np.int64), mode="circular")
ts_case("tscatter_f16", past.astype(np.float16), rnd(3, 2, 2, 4).astype(np.float16), np.array([1, 2, 6], np.int64))
ts_case("tscatter_empty_update", past, np.zeros((3, 2, 0, 4), np.float32), np.array([8, 8, 8], np.int64))
w.bad("tscatter_bad_overflow", "TensorScatter", [("past_cache", past), ("update", rnd(3, 2, 2, 4)),
                                                  ("write_indices", np.array([0, 7, 0], np.int64))],
      [("present_cache", TP.FLOAT)], "passes max_sequence_length", opset=24)
w.bad("tscatter_bad_negative", "TensorScatter", [("past_cache", past), ("update", rnd(3, 2, 2, 4)),
                                                  ("write_indices", np.array([0, -1, 0], np.int64))],
      [("present_cache", TP.FLOAT)], "write index -1", opset=24)
w.bad("tscatter_bad_shape", "TensorScatter", [("past_cache", past), ("update", rnd(3, 1, 2, 4))],
      [("present_cache", TP.FLOAT)], "does not fit", opset=24)
w.bad("tscatter_bad_axis0", "TensorScatter", [("past_cache", past), ("update", rnd(1, 2, 8, 4))],
      [("present_cache", TP.FLOAT)], "batch dim", opset=24, axis=0)
w.bad("tscatter_bad_mode", "TensorScatter", [("past_cache", past), ("update", rnd(3, 2, 1, 4))],
      [("present_cache", TP.FLOAT)], "mode", opset=24, mode="ring")
w.bad("tscatter_bad_indices", "TensorScatter", [("past_cache", past), ("update", rnd(3, 2, 1, 4)),
                                                 ("write_indices", np.zeros(2, np.int64))],
      [("present_cache", TP.FLOAT)], "write_indices must be", opset=24)


# ---------------------------------------------------------------- LinearAttention (27)
def linear_attention(q, k, v, past, decay, beta, hq, hkv, rule, scale=0.0):
    """Token-by-token recurrence in float64; returns (output, present_state)."""
    B, T, _ = q.shape
    dk, dv = q.shape[2] // hq, v.shape[2] // hkv
    q4 = q.astype(np.float64).reshape(B, T, hq, dk)
    k4 = k.astype(np.float64).reshape(B, T, hkv, dk)
    v4 = v.astype(np.float64).reshape(B, T, hkv, dv)
    st = np.zeros((B, hkv, dk, dv)) if past is None else past.astype(np.float64).copy()
    scale = scale or 1 / np.sqrt(dk)
    out = np.zeros((B, T, hq, dv))
    group = hq // hkv
    for b in range(B):
        for h in range(hkv):
            S = st[b, h]
            for t in range(T):
                kt, vt = k4[b, t, h], v4[b, t, h]
                if rule in ("gated", "gated_delta"):
                    g = decay[b, t].astype(np.float64)
                    g = g[h] if g.shape[0] == hkv else g[h * dk:(h + 1) * dk]
                    S = S * np.exp(g).reshape(-1, 1) if np.ndim(g) else S * np.exp(g)
                if rule in ("delta", "gated_delta"):
                    bb = beta[b, t].astype(np.float64)
                    vt = bb[h if bb.shape[0] > 1 else 0] * (vt - S.T @ kt)
                S = S + np.outer(kt, vt)
                for g2 in range(group):
                    out[b, t, h * group + g2] = scale * (S.T @ q4[b, t, h * group + g2])
            st[b, h] = S
    return out.reshape(B, T, hq * dv), st


def la_case(name, B, T, hq, hkv, dk, dv, rule, dt=np.float32, state_dt=None, past=True, decay_per_dim=False,
            beta_one=False, scale=0.0):
    q = rnd(B, T, hq * dk).astype(dt)
    kk = rnd(B, T, hkv, dk)
    kk = (kk / np.linalg.norm(kk, axis=-1, keepdims=True)).reshape(B, T, hkv * dk).astype(dt)
    v = rnd(B, T, hkv * dv).astype(dt)
    ps = (rnd(B, hkv, dk, dv) * 0.3).astype(state_dt or dt) if past else None
    gated, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    g = (-rng.uniform(0.01, 0.5, (B, T, hkv * dk if decay_per_dim else hkv))).astype(dt) if gated else None
    bt = rng.uniform(0.1, 0.9, (B, T, 1 if beta_one else hkv)).astype(dt) if delta else None
    o, st = linear_attention(q, kk, v, ps, g, bt, hq, hkv, rule, scale)
    attrs = dict(q_num_heads=hq, kv_num_heads=hkv, update_rule=rule)
    if scale:
        attrs["scale"] = scale
    w.case(name, "LinearAttention", [("query", q), ("key", kk), ("value", v), ("past_state", ps), ("decay", g),
                                     ("beta", bt)],
           [("output", o.astype(dt)), ("present_state", st.astype(ps.dtype if past else dt))], opset=27, **attrs)


la_case("linattn_linear", 2, 5, 2, 2, 8, 6, "linear")
la_case("linattn_linear_no_past", 1, 4, 3, 3, 4, 4, "linear", past=False)
la_case("linattn_gated_head", 2, 4, 2, 2, 8, 8, "gated")
la_case("linattn_gated_dim", 2, 4, 2, 2, 8, 5, "gated", decay_per_dim=True)
la_case("linattn_delta", 2, 6, 2, 2, 8, 8, "delta")
la_case("linattn_delta_beta1", 1, 3, 2, 2, 4, 8, "delta", beta_one=True)
la_case("linattn_gated_delta", 2, 5, 4, 2, 8, 8, "gated_delta")
la_case("linattn_gated_delta_dim", 1, 5, 2, 2, 6, 4, "gated_delta", decay_per_dim=True)
la_case("linattn_gqa_mqa", 2, 3, 4, 1, 8, 8, "gated_delta", past=False)
la_case("linattn_decode", 3, 1, 2, 2, 16, 16, "gated_delta")
la_case("linattn_scale", 1, 4, 2, 2, 8, 8, "linear", scale=0.5)
la_case("linattn_long_rows", 1, 3, 1, 1, 64, 67, "gated_delta")
la_case("linattn_f16", 2, 4, 2, 2, 8, 8, "gated_delta", dt=np.float16)
la_case("linattn_f16_f32_state", 2, 4, 2, 2, 8, 8, "gated_delta", dt=np.float16, state_dt=np.float32)
la_case("linattn_no_tokens", 2, 0, 2, 2, 4, 4, "gated")
qa, ka, va = rnd(1, 2, 8), rnd(1, 2, 8), rnd(1, 2, 8)
LA = dict(q_num_heads=2, kv_num_heads=2, opset=27)
outs = [("output", TP.FLOAT), ("present_state", TP.FLOAT)]
w.bad("linattn_bad_no_decay", "LinearAttention", [("query", qa), ("key", ka), ("value", va)], outs,
      "decay is required", update_rule="gated", **LA)
w.bad("linattn_bad_extra_beta", "LinearAttention", [("query", qa), ("key", ka), ("value", va), ("past_state", None),
                                                    ("decay", None), ("beta", rnd(1, 2, 2))], outs,
      "beta is not taken", update_rule="linear", **LA)
w.bad("linattn_bad_past", "LinearAttention", [("query", qa), ("key", ka), ("value", va), ("past_state", rnd(1, 2, 4, 3))],
      outs, "past_state", update_rule="linear", **LA)
w.bad("linattn_bad_key", "LinearAttention", [("query", qa), ("key", rnd(1, 2, 6)), ("value", va)], outs,
      "kv_num_heads * d_k", update_rule="linear", **LA)
w.bad("linattn_bad_decay_shape", "LinearAttention", [("query", qa), ("key", ka), ("value", va), ("past_state", None),
                                                     ("decay", rnd(1, 2, 3))], outs, "decay", update_rule="gated", **LA)
w.bad("linattn_bad_heads", "LinearAttention", [("query", qa), ("key", ka), ("value", va)], outs, "positive multiple",
      q_num_heads=2, kv_num_heads=3, update_rule="linear", opset=27)
w.bad("linattn_bad_rule", "LinearAttention", [("query", qa), ("key", ka), ("value", va)], outs, "update_rule",
      update_rule="mamba", **LA)


# ---------------------------------------------------------------- CausalConvWithState (27)
def causal_conv(x, wt, bias, past, act):
    B, C, L = x.shape
    k = wt.shape[2]
    pad = np.zeros((B, C, k - 1)) if past is None else past.astype(np.float64)
    p = np.concatenate([pad, x.astype(np.float64)], axis=2)
    y = np.zeros((B, C, L))
    for t in range(L):
        y[:, :, t] = np.einsum("bcj,cj->bc", p[:, :, t:t + k], wt[:, 0, :].astype(np.float64))
    if bias is not None:
        y += bias.astype(np.float64)[None, :, None]
    if act != "none":
        y = y / (1 + np.exp(-y))
    return y, p[:, :, p.shape[2] - (k - 1):]


def cc_case(name, B, C, L, k, bias=False, past=False, act="none", dt=np.float32):
    x, wt = rnd(B, C, L).astype(dt), rnd(C, 1, k).astype(dt)
    bb = rnd(C).astype(dt) if bias else None
    ps = rnd(B, C, k - 1).astype(dt) if past else None
    y, st = causal_conv(x, wt, bb, ps, act)
    w.case(name, "CausalConvWithState", [("input", x), ("weight", wt), ("bias", bb), ("past_state", ps)],
           [("output", y.astype(dt)), ("present_state", st.astype(dt))], opset=27, activation=act)


cc_case("cconv_basic", 2, 3, 9, 4)
cc_case("cconv_bias_past", 2, 5, 7, 4, bias=True, past=True)
cc_case("cconv_silu_past", 1, 4, 6, 3, past=True, act="silu")
cc_case("cconv_swish", 2, 2, 5, 3, bias=True, act="swish")
cc_case("cconv_decode", 3, 8, 1, 4, bias=True, past=True, act="silu")
cc_case("cconv_short", 1, 3, 2, 5, past=True)  # L < k - 1: the state keeps old values
cc_case("cconv_short_no_past", 1, 3, 2, 5)
cc_case("cconv_k1", 2, 3, 4, 1, bias=True)  # empty state
cc_case("cconv_long", 1, 16, 1000, 4, bias=True, past=True, act="silu")
cc_case("cconv_f16", 2, 4, 6, 4, bias=True, past=True, act="silu", dt=np.float16)
cc_case("cconv_empty_len", 2, 3, 0, 4, past=True)
xc, wc = rnd(2, 3, 5), rnd(3, 1, 4)
CC = [("output", TP.FLOAT), ("present_state", TP.FLOAT)]
w.bad("cconv_bad_weight", "CausalConvWithState", [("input", xc), ("weight", rnd(3, 2, 4))], CC, "weight", opset=27)
w.bad("cconv_bad_past", "CausalConvWithState", [("input", xc), ("weight", wc), ("bias", None),
                                                ("past_state", rnd(2, 3, 2))], CC, "past_state", opset=27)
w.bad("cconv_bad_bias", "CausalConvWithState", [("input", xc), ("weight", wc), ("bias", rnd(4))], CC, "bias", opset=27)
w.bad("cconv_bad_rank", "CausalConvWithState", [("input", rnd(3, 5)), ("weight", wc)], CC, "(B, C, L)", opset=27)
w.bad("cconv_bad_activation", "CausalConvWithState", [("input", xc), ("weight", wc)], CC, "activation", opset=27,
      activation="gelu")


# ---------------------------------------------------------------- FlexAttention (ai.onnx.preview 1)
PREVIEW = [("ai.onnx.preview", 1)]


def flex(q, k, v, scale=None, score_mod=None, prob_mod=None):
    e = q.shape[-1]
    scale = 1 / np.sqrt(e) if scale is None else scale
    rep = q.shape[1] // k.shape[1]
    k64 = np.repeat(k.astype(np.float64), rep, axis=1)
    v64 = np.repeat(v.astype(np.float64), rep, axis=1)
    sc = q.astype(np.float64) @ k64.swapaxes(-1, -2) * scale
    if score_mod:
        sc = score_mod(sc)
    p = np.exp(sc - sc.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    if prob_mod:
        p = prob_mod(p)
    return p @ v64


def mod_graph(name, nodes, inits=(), elem=TP.FLOAT):
    """A modifier graph: input x, output y, both rank 4 of `elem`."""
    return helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", elem, None)],
                             [helper.make_tensor_value_info("y", elem, None)],
                             initializer=[numpy_helper.from_array(a, n) for n, a in inits])


def flex_case(name, q, k, v, ref_kwargs=None, **attrs):
    y = flex(q, k, v, **(ref_kwargs or {}))
    w.case(name, "FlexAttention", [("Q", q), ("K", k), ("V", v)], [("Y", y.astype(q.dtype))], opset=23,
           domain="ai.onnx.preview", extra_opsets=PREVIEW, **attrs)


q, k, v = rnd(2, 4, 7, 16), rnd(2, 4, 9, 16), rnd(2, 4, 9, 16)
flex_case("flex_basic", q, k, v)
flex_case("flex_gqa", rnd(2, 6, 5, 8), rnd(2, 2, 6, 8), rnd(2, 2, 6, 8))
flex_case("flex_mqa_diff_v", rnd(1, 4, 3, 8), rnd(1, 1, 70, 8), rnd(1, 1, 70, 24))
flex_case("flex_scale", q, k, v, {"scale": 0.05}, scale=0.05)
flex_case("flex_f64", q.astype(np.float64), k.astype(np.float64), v.astype(np.float64))
flex_case("flex_f16", q.astype(np.float16), k.astype(np.float16), v.astype(np.float16))
flex_case("flex_precision_double", q, k, v, softmax_precision=11)
cap = np.array(2.0, np.float32)
soft_cap = mod_graph("soft_cap", [helper.make_node("Div", ["x", "cap"], ["t0"]), helper.make_node("Tanh", ["t0"], ["t1"]),
                                  helper.make_node("Mul", ["t1", "cap"], ["y"])], [("cap", cap)])
flex_case("flex_soft_cap", q, k, v, {"score_mod": lambda s: 2.0 * np.tanh(s / 2.0)}, score_mod=soft_cap)
mask = np.triu(np.full((7, 9), -np.inf, np.float32), 1)
causal = mod_graph("causal", [helper.make_node("Add", ["x", "mask"], ["y"])], [("mask", mask)])
flex_case("flex_causal", q, k, v, {"score_mod": lambda s: s + mask}, score_mod=causal)
halve = mod_graph("halve", [helper.make_node("Mul", ["x", "h"], ["y"])], [("h", np.array(0.5, np.float32))])
flex_case("flex_prob_mod", q, k, v, {"prob_mod": lambda p: p * 0.5}, prob_mod=halve)
flex_case("flex_both_mods", q, k, v, {"score_mod": lambda s: s + mask, "prob_mod": lambda p: p * 0.5},
          score_mod=causal, prob_mod=halve)
halve64 = mod_graph("halve64", [helper.make_node("Mul", ["x", "h"], ["y"])], [("h", np.array(0.5))], TP.DOUBLE)
flex_case("flex_prob_mod_double", q, k, v, {"prob_mod": lambda p: p * 0.5}, prob_mod=halve64, softmax_precision=11)
# A score_mod reading an outer-scope value (a graph input of the main graph).
bias = rnd(9)
outer = mod_graph("outer", [helper.make_node("Add", ["x", "bias"], ["y"])])
node = helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], domain="ai.onnx.preview", score_mod=outer)
yb = flex(q, k, v, score_mod=lambda s: s + bias)
m = model([node], [value_info("Q", q), value_info("K", k), value_info("V", v), value_info("bias", bias)],
          [value_info("Y", yb.astype(np.float32))], opset=23, extra_opsets=PREVIEW)
w.model_case("flex_outer_scope", m, [q, k, v, bias], [yb.astype(np.float32)])
FL = dict(opset=23, domain="ai.onnx.preview", extra_opsets=PREVIEW)
w.bad("flex_bad_heads", "FlexAttention", [("Q", rnd(1, 3, 2, 4)), ("K", rnd(1, 2, 2, 4)), ("V", rnd(1, 2, 2, 4))],
      [("Y", TP.FLOAT)], "multiple", **FL)
w.bad("flex_bad_head_size", "FlexAttention", [("Q", rnd(1, 2, 2, 4)), ("K", rnd(1, 2, 2, 5)), ("V", rnd(1, 2, 2, 4))],
      [("Y", TP.FLOAT)], "do not agree", **FL)
shrink = mod_graph("shrink", [helper.make_node("ReduceSum", ["x"], ["y"], keepdims=1)])
w.bad("flex_bad_mod_shape", "FlexAttention", [("Q", q), ("K", k), ("V", v)], [("Y", TP.FLOAT)],
      "score_mod must return", score_mod=shrink, **FL)
w.bad("flex_bad_precision", "FlexAttention", [("Q", q), ("K", k), ("V", v)], [("Y", TP.FLOAT)], "softmax_precision",
      softmax_precision=10, **FL)

w.done()
