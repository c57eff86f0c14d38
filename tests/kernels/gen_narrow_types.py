#!/usr/bin/python3
"""Kernel cases for the narrow element types: float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz,
e8m0), float4e2m1, int4/uint4, int2/uint2 — Cast both ways with and without saturation,
blocked and per-axis Quantize/DequantizeLinear, the loader's packed raw_data and int32_data
forms (odd element counts), data movement that works on one-byte codes (Transpose of
float8), and clear refusals where onyx has no kernel (Transpose of a packed type).

The reference is this file's own: every code of a format is decoded from the format's
definition, and a value is encoded as the nearest of those values (ties to the even code),
so it shares nothing with onyx's bit-level converters. numpy here (Debian's) has no float8
types: tensors are written as TensorProtos by hand.

Usage: gen_narrow_types.py OUT_DIR (see kcase.py for the layout)."""
import math
import os

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper

from kcase import Writer, model

w = Writer()
rng = np.random.default_rng(2026)

# TensorProto.DataType codes (Debian's onnx 1.12 predates them)
FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ = 17, 18, 19, 20
UINT4, INT4, FLOAT4E2M1, FLOAT8E8M0, UINT2, INT2 = 21, 22, 23, 24, 25, 26
INT_NAMES = {UINT4: "uint4", INT4: "int4", UINT2: "uint2", INT2: "int2"}

# name -> (code, exponent bits, mantissa bits, bias, kind); kind: "fn" (NaN S.1111.111, no inf),
# "fnuz" (NaN 0x80 only, no -0), "ieee" (inf and NaNs at the top exponent), "e2m1" (no specials)
FLOATS = {
    "e4m3fn": (FLOAT8E4M3FN, 4, 3, 7, "fn"),
    "e4m3fnuz": (FLOAT8E4M3FNUZ, 4, 3, 8, "fnuz"),
    "e5m2": (FLOAT8E5M2, 5, 2, 15, "ieee"),
    "e5m2fnuz": (FLOAT8E5M2FNUZ, 5, 2, 16, "fnuz"),
    "e2m1": (FLOAT4E2M1, 2, 1, 1, "e2m1"),
}
INTS = {INT4: (4, -8, 7), UINT4: (4, 0, 15), INT2: (2, -2, 1), UINT2: (2, 0, 3)}
BITS = {FLOAT4E2M1: 4, INT4: 4, UINT4: 4, INT2: 2, UINT2: 2}


def magnitude(code, e, m, bias):
    """The value of magnitude code `code` by the format's definition (no specials)."""
    exp, man = code >> m, code & ((1 << m) - 1)
    if exp == 0:
        return man * 2.0 ** (1 - bias - m)
    return (1 + man / 2 ** m) * 2.0 ** (exp - bias)


def finite_magnitudes(fmt):
    """[(magnitude, code)] of the format's finite non-negative values, plus the first code
    past the largest (marked None): rounding onto it is an overflow."""
    _, e, m, bias, kind = FLOATS[fmt]
    top = (1 << (e + m)) - 1
    last = {"fn": top - 1, "fnuz": top, "ieee": top - (1 << m), "e2m1": top}[kind]
    out = [(magnitude(c, e, m, bias), c) for c in range(last + 1)]
    out.append((magnitude(last + 1, e, m, bias), None))
    return out, 1 << (e + m)


def encode(fmt, x, saturate=True):
    """x (a Python float) as a code of `fmt`: nearest value, ties to the even code."""
    _, e, m, bias, kind = FLOATS[fmt]
    table, sign_bit = finite_magnitudes(fmt)
    neg = np.signbit(x)
    sign = sign_bit if neg else 0
    nan = {"fn": sign | (sign_bit - 1), "fnuz": sign_bit, "ieee": sign | (sign_bit - 1 - 1), "e2m1": sign_bit}[kind]
    if np.isnan(x):
        return nan
    a = abs(x)
    if np.isinf(x):
        code = None
    else:
        best = min(table, key=lambda vc: (abs(vc[0] - a), (vc[1] if vc[1] is not None else table[-2][1] + 1) & 1))
        code = best[1]
    if code is None:  # overflow
        if saturate or kind == "e2m1":
            code = table[-2][1]
        elif kind == "ieee":
            code = ((1 << e) - 1) << m  # infinity
        else:
            return nan
    if code == 0 and kind == "fnuz":
        return 0
    return sign | code


def decode(fmt, code):
    _, e, m, bias, kind = FLOATS[fmt]
    sign_bit = 1 << (e + m)
    mag = code & (sign_bit - 1)
    s = -1.0 if code & sign_bit else 1.0
    if kind == "fnuz" and code == sign_bit:
        return float("nan")
    if kind == "fn" and mag == sign_bit - 1:
        return math.copysign(float("nan"), s)  # NaNs keep their sign
    if kind == "ieee" and (mag >> m) == (1 << e) - 1:
        return s * float("inf") if (mag & ((1 << m) - 1)) == 0 else math.copysign(float("nan"), s)
    return s * magnitude(mag, e, m, bias)


def narrow_proto(name, dtype, codes, shape, as_int32=False):
    """A TensorProto of narrow codes (one per element), packed as ONNX stores them."""
    codes = [int(c) for c in codes]
    bits = BITS.get(dtype, 8)
    per = 8 // bits
    packed = bytearray((len(codes) + per - 1) // per)
    for i, c in enumerate(codes):
        packed[i // per] |= (c & ((1 << bits) - 1)) << (bits * (i % per))
    t = TP(name=name, data_type=dtype, dims=list(shape))
    if as_int32:
        t.int32_data.extend(packed)
    else:
        t.raw_data = bytes(packed)
    return t


def plain_proto(name, a):
    return onnx.numpy_helper.from_array(np.asarray(a), name)


def write(name, m, inputs, outputs, kind="pass", error=None):
    d = w._dir(kind, name)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for prefix, protos in (("input", inputs), ("output", outputs)):
        for k, p in enumerate(protos):
            with open(os.path.join(d, "test_data_set_0", f"{prefix}_{k}.pb"), "wb") as f:
                f.write(p.SerializeToString())
    if error:
        with open(os.path.join(d, "expected_error.txt"), "w") as f:
            f.write(error + "\n")


def one_node(op, ins, outs, opset=25, **attrs):
    """ins/outs: [(name, elem_type, shape)]."""
    node = helper.make_node(op, [n for n, _, _ in ins], [n for n, _, _ in outs], **attrs)
    return model([node], [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                 [helper.make_tensor_value_info(n, t, s) for n, t, s in outs], opset=opset, ir_version=11)


# Values that probe each format: ties, subnormals, the edges of the range, specials.
def probe_values(fmt):
    table, _ = finite_magnitudes(fmt)
    mags = [v for v, c in table if c is not None]
    vals = [0.0, -0.0, float("nan"), float("inf"), float("-inf"), mags[-1] * 1.01, mags[-1] * 4, -mags[-1] * 4]
    for lo, hi in zip(mags[:6] + mags[-4:-1], mags[1:7] + mags[-3:]):
        vals += [(lo + hi) / 2, -(lo + hi) / 2, lo + (hi - lo) * 0.3]
    vals += list(rng.uniform(-mags[-1], mags[-1], 24))
    return np.array(vals, np.float32)


# ---- Cast float32 -> narrow float (saturate on and off) and back ----
for fmt, (code, *_rest) in FLOATS.items():
    x = probe_values(fmt)
    for saturate in (1, 0):
        if fmt == "e2m1" and saturate == 0:
            continue  # float4e2m1 always saturates; Cast's saturate is about float8
        codes = [encode(fmt, float(v), bool(saturate)) for v in x]
        m = one_node("Cast", [("x", TP.FLOAT, [len(x)])], [("y", code, [len(x)])], to=code, saturate=saturate)
        write(f"cast_float_to_{fmt}_saturate{saturate}", m, [plain_proto("x", x)],
              [narrow_proto("y", code, codes, [len(x)])])
    all_codes = list(range(16 if fmt == "e2m1" else 256))
    back = np.array([decode(fmt, c) for c in all_codes], np.float32)
    m = one_node("Cast", [("x", code, [len(all_codes)])], [("y", TP.FLOAT, [len(all_codes)])], to=TP.FLOAT)
    write(f"cast_{fmt}_to_float_every_code", m, [narrow_proto("x", code, all_codes, [len(all_codes)])],
          [plain_proto("y", back)])

# ---- Cast with the narrow integers: wrap, odd element counts, the int32_data form ----
for dtype, (bits, lo, hi) in INTS.items():
    vals = np.arange(lo - 3, hi + 4, dtype=np.int32)  # past both ends: integer narrowing wraps
    codes = [int(v) & ((1 << bits) - 1) for v in vals]
    n = len(vals)
    m = one_node("Cast", [("x", TP.INT32, [n])], [("y", dtype, [n])], to=dtype)
    write(f"cast_int32_to_{INT_NAMES[dtype]}", m, [plain_proto("x", vals)],
          [narrow_proto("y", dtype, codes, [n])])
    signed = [c - (1 << bits) if lo < 0 and c >= (1 << (bits - 1)) else c for c in codes]
    m = one_node("Cast", [("x", dtype, [n])], [("y", TP.FLOAT, [n])], to=TP.FLOAT)
    write(f"cast_{INT_NAMES[dtype]}_int32_data_to_float", m,
          [narrow_proto("x", dtype, codes, [n], as_int32=True)], [plain_proto("y", np.array(signed, np.float32))])

# ---- float8 between formats (through the value) ----
src = np.array([decode("e5m2", c) for c in range(256)], np.float32)
m = one_node("Cast", [("x", FLOAT8E5M2, [256])], [("y", FLOAT8E4M3FN, [256])], to=FLOAT8E4M3FN)
write("cast_e5m2_to_e4m3fn", m, [narrow_proto("x", FLOAT8E5M2, range(256), [256])],
      [narrow_proto("y", FLOAT8E4M3FN, [encode("e4m3fn", float(v)) for v in src], [256])])

# ---- blocked QuantizeLinear / DequantizeLinear (int4, int8, e4m3fn) ----
x = rng.uniform(-6, 6, (3, 10)).astype(np.float32)
block = 4
scale = rng.uniform(0.3, 1.2, (3, 3)).astype(np.float32)  # ceil(10 / 4) = 3 blocks along axis 1
full_scale = np.repeat(scale, block, axis=1)[:, :10]
for dtype, name in ((INT4, "int4"), (TP.INT8, "int8"), (FLOAT8E4M3FN, "e4m3fn")):
    if dtype == FLOAT8E4M3FN:
        q_codes = [encode("e4m3fn", float(np.float32(v))) for v in (x / full_scale).ravel()]
        deq = np.array([decode("e4m3fn", c) for c in q_codes], np.float32).reshape(x.shape) * full_scale
    else:
        lo, hi = (-8, 7) if dtype == INT4 else (-128, 127)
        q = np.clip(np.rint(x / full_scale), lo, hi).astype(np.int64)
        q_codes = [int(v) & (0xF if dtype == INT4 else 0xFF) for v in q.ravel()]
        deq = (q * full_scale).astype(np.float32)
    zp = narrow_proto("zp", dtype, [0] * scale.size, scale.shape)
    y = narrow_proto("y", dtype, q_codes, x.shape) if dtype != TP.INT8 else plain_proto("y", q.astype(np.int8))
    zp = zp if dtype != TP.INT8 else plain_proto("zp", np.zeros(scale.shape, np.int8))
    m = one_node("QuantizeLinear", [("x", TP.FLOAT, [3, 10]), ("scale", TP.FLOAT, [3, 3]), ("zp", dtype, [3, 3])],
                 [("y", dtype, [3, 10])], axis=1, block_size=block)
    write(f"quantize_blocked_{name}", m, [plain_proto("x", x), plain_proto("scale", scale), zp], [y])
    m = one_node("DequantizeLinear", [("y", dtype, [3, 10]), ("scale", TP.FLOAT, [3, 3]), ("zp", dtype, [3, 3])],
                 [("x", TP.FLOAT, [3, 10])], axis=1, block_size=block)
    y_in = narrow_proto("y", dtype, q_codes, x.shape) if dtype != TP.INT8 else plain_proto("y", q.astype(np.int8))
    write(f"dequantize_blocked_{name}", m, [y_in, plain_proto("scale", scale), zp], [plain_proto("x", deq)])

# A block size that does not fit the scale's shape is refused with the shapes named.
m = one_node("DequantizeLinear", [("y", INT4, [3, 10]), ("scale", TP.FLOAT, [3, 3])], [("x", TP.FLOAT, [3, 10])],
             axis=1, block_size=2)
write("dequantize_blocked_wrong_block", m, [narrow_proto("y", INT4, [1] * 30, [3, 10]),
                                            plain_proto("scale", scale)], [], kind="bad", error="does not fit x")

# ---- data movement: float8 codes move as bytes; packed types are refused by name ----
codes = rng.integers(0, 0x7E, (2, 3)).tolist()
flat = [c for row in codes for c in row]
moved = [codes[r][c] for c in range(3) for r in range(2)]
m = one_node("Transpose", [("x", FLOAT8E4M3FN, [2, 3])], [("y", FLOAT8E4M3FN, [3, 2])], perm=[1, 0])
write("transpose_e4m3fn", m, [narrow_proto("x", FLOAT8E4M3FN, flat, [2, 3])],
      [narrow_proto("y", FLOAT8E4M3FN, moved, [3, 2])])
m = one_node("Reshape", [("x", INT4, [2, 3]), ("s", TP.INT64, [1])], [("y", INT4, [6])])
write("reshape_int4", m, [narrow_proto("x", INT4, [1, 2, 3, 4, 5, 6], [2, 3]), plain_proto("s", np.array([6]))],
      [narrow_proto("y", INT4, [1, 2, 3, 4, 5, 6], [6])])
# Packed elements moved one code at a time: the transpose of [[1, 2, 3], [4, 5, 6]] (and
# uint4's 15 and int4's -8, the codes at the ends).
m = one_node("Transpose", [("x", INT4, [2, 3])], [("y", INT4, [3, 2])], perm=[1, 0])
write("transpose_int4", m, [narrow_proto("x", INT4, [1, 2, 3, 4, -8, 6], [2, 3])],
      [narrow_proto("y", INT4, [1, 4, 2, -8, 3, 6], [3, 2])])
m = one_node("Transpose", [("x", UINT4, [3, 1, 3])], [("y", UINT4, [3, 3, 1])], perm=[2, 0, 1])
write("transpose_uint4_rank3", m, [narrow_proto("x", UINT4, [0, 1, 2, 13, 14, 15, 7, 8, 9], [3, 1, 3])],
      [narrow_proto("y", UINT4, [0, 13, 7, 1, 14, 8, 2, 15, 9], [3, 3, 1])])
# BitCast between packed types of one width keeps the codes (int4 -1 is uint4 15), and Pad
# and ConstantOfShape fill with packed values.
m = one_node("BitCast", [("x", INT4, [5])], [("y", UINT4, [5])], opset=26, to=UINT4)
write("bitcast_int4_to_uint4", m, [narrow_proto("x", INT4, [-1, 0, 7, -8, 3], [5])],
      [narrow_proto("y", UINT4, [15, 0, 7, 8, 3], [5])])
m = one_node("BitCast", [("x", TP.UINT8, [3])], [("y", FLOAT8E4M3FN, [3])], opset=26, to=FLOAT8E4M3FN)
write("bitcast_uint8_to_e4m3fn", m, [plain_proto("x", np.array([0x38, 0x40, 0xB8], np.uint8))],
      [narrow_proto("y", FLOAT8E4M3FN, [0x38, 0x40, 0xB8], [3])])
pad_model = model([helper.make_node("Pad", ["x", "pads", "value"], ["y"], mode="constant")],
                  [helper.make_tensor_value_info("x", UINT2, [3])], [helper.make_tensor_value_info("y", UINT2, [6])],
                  initializers=[helper.make_tensor("pads", TP.INT64, [2], [2, 1]), narrow_proto("value", UINT2, [3], [])],
                  opset=25, ir_version=11)
write("pad_uint2", pad_model, [narrow_proto("x", UINT2, [1, 2, 0], [3])], [narrow_proto("y", UINT2, [3, 3, 1, 2, 0, 3], [6])])
# A packed tensor whose bytes do not cover its shape is refused at load.
m = one_node("Identity", [("x", UINT4, [5])], [("y", UINT4, [5])])
short = narrow_proto("x", UINT4, [1, 2, 3, 4, 5], [5])
short.raw_data = short.raw_data[:2]
write("uint4_short_raw_data", m, [short], [], kind="bad", error="needs 3 bytes")

w.done()
