#!/usr/bin/python3
"""Kernel cases for the com.microsoft quantised MatMuls that ORT's quantisers emit:
MatMulIntegerToFloat, DynamicQuantizeMatMul and MatMulNBits. Each runs once with B an
initializer (packed by the kernel in prepare) and once with B fed at run time. References are numpy integer arithmetic following the ops' published definitions.

Usage: gen_contrib_quantized.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP
from onnx import helper

from kcase import Writer, model, to_proto, value_info

w = Writer()
rng = np.random.default_rng(8080)
MS = [("com.microsoft", 1)]


def ints(dtype, *shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, size=shape).astype(dtype)


def scaled(acc, scale, bias):
    y = acc.astype(np.int32).astype(np.float32) * scale.astype(np.float32)
    return y + bias if bias is not None else y


def int_matmul(a, az, b, bz):
    return np.matmul(a.astype(np.int64) - np.int64(az), b.astype(np.int64) - bz.astype(np.int64))


def both_ways(name, op, inputs, expected):
    """The case with B fed (the reference path) and with B and its zero point initializers
    (packed for oneDNN when B - zero point fits int8)."""
    w.case(f"{name}_b_input", op, inputs, [("Y", expected)], domain="com.microsoft", extra_opsets=MS)
    names = [n if v is not None else "" for n, v in inputs]
    while names and names[-1] == "":
        names.pop()
    constant = ("B", "b_zero_point")
    inits = [to_proto(v, n) for n, v in inputs if v is not None and n in constant]
    feeds = [(n, v) for n, v in inputs if v is not None and n not in constant]
    m = model([helper.make_node(op, names, ["Y"], domain="com.microsoft")], [value_info(n, v) for n, v in feeds],
              [value_info("Y", expected)], initializers=inits, extra_opsets=MS)
    w.model_case(f"{name}_b_constant", m, [v for _, v in feeds], [expected])


# MatMulIntegerToFloat: uint8 and int8 A, int8 and uint8 B, zero points per tensor and per
# column, per-column scales, bias, batched A, float16 scales.
for name, at, bt, ash, n, a_zp, b_zp_kind, per_col, with_bias in [
        ("u8s8", np.uint8, np.int8, (4, 16), 8, 3, None, False, False),
        ("u8s8_zp_bias", np.uint8, np.int8, (2, 5, 32), 12, 128, None, True, True),
        ("s8s8", np.int8, np.int8, (3, 24), 5, -7, "scalar", False, True),
        ("u8u8_zp128", np.uint8, np.uint8, (6, 20), 9, 100, "128", True, False),
        ("u8u8_col_zp", np.uint8, np.uint8, (5, 16), 7, 0, "column", True, True)]:
    k = ash[-1]
    a = ints(at, *ash)
    b = ints(bt, k, n)
    if b_zp_kind is None:
        bz = None
    elif b_zp_kind == "128":
        bz = np.array(128, bt)
    elif b_zp_kind == "scalar":
        bz = np.array(5, bt)
    else:
        bz = ints(bt, n)
    a_scale = np.array(0.02, np.float32)
    b_scale = (rng.random(n) * 0.1 + 0.01).astype(np.float32) if per_col else np.array(0.05, np.float32)
    bias = rng.standard_normal(n).astype(np.float32) if with_bias else None
    acc = int_matmul(a, a_zp, b, bz if bz is not None else np.zeros((), np.int64))
    y = scaled(acc, (a_scale * b_scale).astype(np.float32), bias)
    both_ways(f"matmul_int_to_float_{name}", "MatMulIntegerToFloat",
              [("A", a), ("B", b), ("a_scale", a_scale), ("b_scale", b_scale), ("a_zero_point", np.array(a_zp, at)),
               ("b_zero_point", bz), ("bias", bias)], y)
a, b = ints(np.uint8, 3, 8), ints(np.int8, 8, 4)
a_scale, b_scale = np.array(0.03, np.float16), np.array(0.5, np.float16)
y = (int_matmul(a, 0, b, np.zeros((), np.int64)).astype(np.float32) * np.float32(np.float32(a_scale) * np.float32(b_scale)))
w.case("matmul_int_to_float_f16", "MatMulIntegerToFloat",
       [("A", a), ("B", b), ("a_scale", a_scale), ("b_scale", b_scale)], [("Y", y.astype(np.float16))],
       domain="com.microsoft", extra_opsets=MS)
w.bad("matmul_int_to_float_bad_scale", "MatMulIntegerToFloat",
      [("A", a), ("B", b), ("a_scale", np.array(0.1, np.float32)), ("b_scale", np.ones(3, np.float32))],
      [("Y", TP.FLOAT)], "b_scale", domain="com.microsoft", extra_opsets=MS)


def dynamic_quantize(a):
    lo, hi = np.float32(min(0.0, a.min())), np.float32(max(0.0, a.max()))
    scale = np.float32((hi - lo) / np.float32(255))
    if scale == 0:
        return np.zeros(a.shape, np.uint8), scale, 0
    zp = int(np.clip(np.rint(-lo / scale), 0, 255))
    q = np.clip(np.rint(a / scale) + np.float32(zp), 0, 255).astype(np.uint8)
    return q, scale, zp


# DynamicQuantizeLinear on rounding ties, as the spec computes them in float32 (round half to even):
# a range of 127.5 makes the scale 0.5 exactly, so every odd multiple of 0.25 is a tie; then a zero
# point that is itself a tie (-min / scale = 0.5 -> 0, 1.5 -> 2).
quarter = np.float32(0.25)
for name, x in [("ties", np.arange(0, 511, dtype=np.float32) * quarter),
                ("zero_point_tie_down", np.concatenate([np.float32([-0.25]), np.arange(0, 510, dtype=np.float32) * quarter])),
                ("zero_point_tie_up", np.concatenate([np.float32([-0.75]), np.arange(0, 508, dtype=np.float32) * quarter]))]:
    q, x_scale, x_zp = dynamic_quantize(x)
    assert x_scale == np.float32(0.5)
    w.case(f"dynamic_quantize_linear_{name}", "DynamicQuantizeLinear", [("x", x)],
           [("y", q), ("y_scale", np.array(x_scale, np.float32)), ("y_zero_point", np.array(x_zp, np.uint8))])

# DynamicQuantizeMatMul: int8 and uint8 B, zero points, per-column scales, bias, batched A, an
# all-positive A (zero point 0), an all-zero A (scale 0: Y = bias), and an A on rounding ties.
for name, bt, ash, n, b_zp_kind, per_col, with_bias, a_kind in [
        ("s8", np.int8, (4, 16), 8, None, False, False, "normal"),
        ("s8_bias_cols", np.int8, (2, 6, 64), 24, None, True, True, "normal"),
        ("u8_zp", np.uint8, (5, 32), 10, "column", True, True, "normal"),
        ("positive_a", np.int8, (3, 16), 6, "scalar", False, True, "positive"),
        ("zero_a", np.int8, (2, 8), 4, None, False, True, "zero"),
        ("ties_a", np.int8, (2, 16), 5, None, True, True, "ties")]:
    k = ash[-1]
    a = rng.standard_normal(ash).astype(np.float32)
    if a_kind == "positive":
        a = np.abs(a)
    elif a_kind == "zero":
        a = np.zeros(ash, np.float32)
    elif a_kind == "ties":  # range 127.5: scale 0.5, so the odd multiples of 0.25 are ties
        a = (np.concatenate([np.arange(31), [510]]) * quarter).astype(np.float32).reshape(ash)
    b = ints(bt, k, n)
    bz = None if b_zp_kind is None else (np.array(3, bt) if b_zp_kind == "scalar" else ints(bt, n))
    b_scale = (rng.random(n) * 0.1 + 0.01).astype(np.float32) if per_col else np.array(0.05, np.float32)
    bias = rng.standard_normal(n).astype(np.float32) if with_bias else None
    q, a_scale, a_zp = dynamic_quantize(a)
    acc = int_matmul(q, a_zp, b, bz if bz is not None else np.zeros((), np.int64))
    y = scaled(acc, (np.float32(a_scale) * b_scale).astype(np.float32), bias)
    both_ways(f"dynamic_quantize_matmul_{name}", "DynamicQuantizeMatMul",
              [("A", a), ("B", b), ("b_scale", b_scale), ("b_zero_point", bz), ("bias", bias)], y)
w.bad("dynamic_quantize_matmul_bad_b", "DynamicQuantizeMatMul",
      [("A", rng.standard_normal((2, 4)).astype(np.float32)), ("B", rng.standard_normal((4, 3)).astype(np.float32)),
       ("b_scale", np.array(0.1, np.float32))], [("Y", TP.FLOAT)], "int8", domain="com.microsoft", extra_opsets=MS)

def pack_codes(codes, bits):
    """Codes (..., count) packed LSB first into bytes along the last axis."""
    per = 8 // bits
    c = codes.reshape(*codes.shape[:-1], -1, per).astype(np.uint16)
    out = np.zeros(c.shape[:-1], np.uint16)
    for t in range(per):
        out |= c[..., t] << (t * bits)
    return out.astype(np.uint8)


def nbits_weights(n, k, bits, block, zp_kind, dtype=np.float32):
    """Random codes, scales and zero points of MatMulNBits, and the dequantised W (N x K)."""
    blocks = -(-k // block)
    codes = rng.integers(0, 1 << bits, size=(n, blocks, block)).astype(np.uint8)
    scales = (rng.random((n, blocks)) * 0.1 + 0.01).astype(dtype)
    if zp_kind == "packed":
        zcodes = rng.integers(0, 1 << bits, size=(n, blocks)).astype(np.uint8)
        per = 8 // bits
        padded = np.zeros((n, -(-blocks // per) * per), np.uint8)
        padded[:, :blocks] = zcodes
        zp_input, zero = pack_codes(padded, bits), zcodes.astype(np.float64)
    elif zp_kind == "float":
        zero = (rng.random((n, blocks)) * (1 << bits)).astype(dtype)
        zp_input = zero
        zero = zero.astype(np.float64)
    else:
        zp_input, zero = None, np.full((n, blocks), float(1 << (bits - 1)))
    w = (codes.astype(np.float64) - zero[..., None]) * scales.astype(np.float64)[..., None]
    w = w.reshape(n, blocks * block)[:, :k]
    return pack_codes(codes, bits), scales, zp_input, w


# MatMulNBits: 4-bit with packed zero points, default zero points, float zero points, 8 and 2
# bits, K not a multiple of block_size, bias, batched A, float16; B fed and B an initializer.
for name, shape_a, bits, block, zp_kind, with_bias, dt in [
        ("q4_zp", (4, 64), 4, 32, "packed", False, np.float32),
        ("q4_default_zp_bias", (2, 3, 64), 4, 16, None, True, np.float32),
        ("q4_float_zp", (5, 32), 4, 32, "float", False, np.float32),
        ("q4_ragged_k", (3, 40), 4, 16, "packed", True, np.float32),
        ("q8", (4, 48), 8, 16, "packed", False, np.float32),
        ("q2", (3, 64), 2, 32, "packed", True, np.float32),
        ("q4_f16", (4, 32), 4, 16, "packed", True, np.float16)]:
    k = shape_a[-1]
    n = 24
    codes, scales, zp, wq = nbits_weights(n, k, bits, block, zp_kind, dt)
    a = rng.standard_normal(shape_a).astype(dt)
    bias = rng.standard_normal(n).astype(dt) if with_bias else None
    y = a.astype(np.float64) @ wq.T + (0 if bias is None else bias.astype(np.float64))
    inputs = [("A", a), ("B", codes), ("scales", scales), ("zero_points", zp), ("g_idx", None), ("bias", bias)]
    attrs = {"K": k, "N": n, "bits": bits, "block_size": block}
    w.case(f"matmul_nbits_{name}_b_input", "MatMulNBits", inputs, [("Y", y.astype(dt))], domain="com.microsoft",
           extra_opsets=MS, **attrs)
    names = [nm if v is not None else "" for nm, v in inputs]
    while names and names[-1] == "":
        names.pop()
    consts = [to_proto(v, nm) for nm, v in inputs if v is not None and nm in ("B", "scales", "zero_points")]
    feeds = [(nm, v) for nm, v in inputs if v is not None and nm not in ("B", "scales", "zero_points")]
    mdl = model([helper.make_node("MatMulNBits", names, ["Y"], domain="com.microsoft", **attrs)],
                [value_info(nm, v) for nm, v in feeds], [value_info("Y", y.astype(dt))], initializers=consts,
                extra_opsets=MS)
    w.model_case(f"matmul_nbits_{name}_b_constant", mdl, [v for _, v in feeds], [y.astype(dt)])
codes, scales, zp, _ = nbits_weights(8, 32, 4, 16, "packed")
w.bad("matmul_nbits_bad_k", "MatMulNBits",
      [("A", rng.standard_normal((2, 30)).astype(np.float32)), ("B", codes), ("scales", scales), ("zero_points", zp)],
      [("Y", TP.FLOAT)], "must end in K", domain="com.microsoft", extra_opsets=MS, K=32, N=8, bits=4, block_size=16)
w.bad("matmul_nbits_bad_bits", "MatMulNBits",
      [("A", rng.standard_normal((2, 32)).astype(np.float32)), ("B", codes), ("scales", scales)],
      [("Y", TP.FLOAT)], "bits = 3", domain="com.microsoft", extra_opsets=MS, K=32, N=8, bits=3, block_size=16)

# A prompt-sized product (20 rows) whose W is dequantised in several tiles (K = 1040 fits 112
# columns in a tile: 3 tiles on one thread; on two, 4 tiles: three of 80 columns, one of 60), K ragged.
codes, scales, zp, wq = nbits_weights(300, 1040, 4, 32, "packed")
a = rng.standard_normal((20, 1040)).astype(np.float32)
mdl = model([helper.make_node("MatMulNBits", ["A", "B", "scales", "zero_points"], ["Y"], domain="com.microsoft", K=1040,
                              N=300, bits=4, block_size=32)],
            [value_info("A", a)], [value_info("Y", np.zeros((20, 300), np.float32))],
            initializers=[to_proto(codes, "B"), to_proto(scales, "scales"), to_proto(zp, "zero_points")], extra_opsets=MS)
w.model_case("matmul_nbits_q4_tiled_prompt_b_constant", mdl, [a], [(a.astype(np.float64) @ wq.T).astype(np.float32)])

w.done()
