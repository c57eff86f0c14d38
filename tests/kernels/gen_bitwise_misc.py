#!/usr/bin/python3
"""Kernel cases for CumProd, BitCast, BitwiseAnd/Or/Xor/Not, Swish and Mish.

Usage: gen_bitwise_misc.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP

from kcase import Writer

w = Writer()
rng = np.random.default_rng(1826)
np.seterr(over="ignore")


def cumprod_ref(x, axis, exclusive=False, reverse=False):
    """Running products along axis, computed in float64 for floats and wrapping for integers."""
    a = np.moveaxis(x, axis, -1)
    if reverse:
        a = a[..., ::-1]
    out = np.empty_like(a)
    acc = np.ones(a.shape[:-1], a.dtype if a.dtype.kind in "iu" else np.float64)
    for i in range(a.shape[-1]):
        if exclusive:
            out[..., i] = acc
        acc = (acc * a[..., i]).astype(acc.dtype)
        if not exclusive:
            out[..., i] = acc
    if reverse:
        out = out[..., ::-1]
    return np.moveaxis(out, -1, axis)


# ---- CumProd ---------------------------------------------------------------------------------
x3 = rng.uniform(0.5, 1.5, (2, 3, 4)).astype(np.float32)
for axis in (0, 1, 2, -1):
    for exclusive in (0, 1):
        for reverse in (0, 1):
            w.case(f"cumprod_f32_axis{axis}_ex{exclusive}_rev{reverse}".replace("-", "m"), "CumProd",
                   [("x", x3), ("axis", np.array(axis, np.int64))],
                   [("y", cumprod_ref(x3, axis, exclusive, reverse).astype(np.float32))],
                   opset=26, exclusive=exclusive, reverse=reverse)
xd = rng.uniform(-2, 2, (5, 3))
w.case("cumprod_f64_axis_int32", "CumProd", [("x", xd), ("axis", np.array([1], np.int32))],
       [("y", cumprod_ref(xd, 1))], opset=26)
xh = rng.uniform(0.8, 1.2, (7,)).astype(np.float16)
w.case("cumprod_f16", "CumProd", [("x", xh), ("axis", np.array(0, np.int64))],
       [("y", cumprod_ref(xh.astype(np.float32), 0).astype(np.float16))], opset=26)
for dt in (np.int32, np.int64, np.uint32, np.uint64):
    xi = rng.integers(1, 40, (3, 9)).astype(dt)  # products wrap modulo 2^bits
    w.case(f"cumprod_{np.dtype(dt).name}_wraps", "CumProd", [("x", xi), ("axis", np.array(1, np.int64))],
           [("y", cumprod_ref(xi, 1))], opset=26)
w.case("cumprod_empty_axis", "CumProd", [("x", np.zeros((2, 0), np.float32)), ("axis", np.array(1, np.int64))],
       [("y", np.zeros((2, 0), np.float32))], opset=26)
w.bad("cumprod_axis_out_of_range", "CumProd", [("x", x3), ("axis", np.array(3, np.int64))], [("y", TP.FLOAT)],
      "out of range", opset=26)
w.bad("cumprod_axis_two_elements", "CumProd", [("x", x3), ("axis", np.array([0, 1], np.int64))], [("y", TP.FLOAT)],
      "one element", opset=26)
w.bad("cumprod_int8_unsupported", "CumProd", [("x", np.ones(3, np.int8)), ("axis", np.array(0, np.int64))],
      [("y", TP.INT8)], "int8", opset=26)

# ---- BitCast ---------------------------------------------------------------------------------
PAIRS = [(np.float32, np.int32, TP.INT32), (np.int32, np.float32, TP.FLOAT), (np.float64, np.uint64, TP.UINT64),
         (np.int64, np.float64, TP.DOUBLE), (np.int8, np.uint8, TP.UINT8), (np.uint16, np.float16, TP.FLOAT16),
         (np.float16, np.int16, TP.INT16), (np.uint32, np.int32, TP.INT32), (np.bool_, np.uint8, TP.UINT8),
         (np.uint8, np.bool_, TP.BOOL), (np.float32, np.float32, TP.FLOAT)]
for src, dst, code in PAIRS:
    if src == np.bool_:
        x = rng.integers(0, 2, (2, 5)).astype(np.bool_)
    elif src == np.uint8 and dst == np.bool_:
        x = rng.integers(0, 2, (2, 5)).astype(np.uint8)
    elif np.dtype(src).kind == "f":
        x = rng.uniform(-100, 100, (2, 5)).astype(src)
    else:
        info = np.iinfo(src)
        x = rng.integers(info.min, info.max, (2, 5), dtype=src, endpoint=True)
        if dst in (np.float32, np.float64, np.float16):  # keep the patterns away from NaN
            x = (x & np.array(0x3FFFFFFFFFFFFFFF, np.uint64).astype(src)) if src != np.uint16 else (x & np.uint16(0x3FFF))
    y = x.view(dst)
    w.case(f"bitcast_{np.dtype(src).name}_to_{np.dtype(dst).name}", "BitCast", [("x", x)], [("y", y)], opset=26, to=code)
w.case("bitcast_scalar", "BitCast", [("x", np.array(1.5, np.float32))], [("y", np.array(1.5, np.float32).view(np.int32))],
       opset=26, to=TP.INT32)
w.case("bitcast_empty", "BitCast", [("x", np.zeros((0, 3), np.float64))], [("y", np.zeros((0, 3), np.int64))],
       opset=26, to=TP.INT64)
w.bad("bitcast_width_mismatch", "BitCast", [("x", np.ones(3, np.float32))], [("y", TP.INT64)], "differ in width",
      opset=26, to=TP.INT64)
w.bad("bitcast_bytes_not_bool", "BitCast", [("x", np.array([0, 1, 7], np.uint8))], [("y", TP.BOOL)], "neither 0 nor 1",
      opset=26, to=TP.BOOL)
w.bad("bitcast_to_unknown_code", "BitCast", [("x", np.ones(3, np.uint8))], [("y", TP.UINT8)], "code 99",
      opset=26, to=99)
w.bad("bitcast_to_string", "BitCast", [("x", np.ones(3, np.uint8))], [("y", TP.UINT8)], "cannot be string",
      opset=26, to=TP.STRING)

# ---- Bitwise ---------------------------------------------------------------------------------
BINARY = [("BitwiseAnd", np.bitwise_and), ("BitwiseOr", np.bitwise_or), ("BitwiseXor", np.bitwise_xor)]
INT_TYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
for op, fn in BINARY:
    for dt in INT_TYPES:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, (3, 4, 5), dtype=dt, endpoint=True)
        b = rng.integers(info.min, info.max, (4, 1), dtype=dt, endpoint=True)
        w.case(f"{op.lower()}_{np.dtype(dt).name}_bcast", op, [("a", a), ("b", b)], [("c", fn(a, b))], opset=18)
    w.bad(f"{op.lower()}_float_unsupported", op, [("a", np.ones(3, np.float32)), ("b", np.ones(3, np.float32))],
          [("c", TP.FLOAT)], "float32", opset=18)
    w.bad(f"{op.lower()}_shapes_clash", op, [("a", np.ones(3, np.int32)), ("b", np.ones(4, np.int32))],
          [("c", TP.INT32)], "broadcast", opset=18)
for dt in INT_TYPES:
    info = np.iinfo(dt)
    a = rng.integers(info.min, info.max, (2, 3, 7), dtype=dt, endpoint=True)
    w.case(f"bitwisenot_{np.dtype(dt).name}", "BitwiseNot", [("x", a)], [("y", np.invert(a))], opset=18)
w.bad("bitwisenot_bool_unsupported", "BitwiseNot", [("x", np.array([True]))], [("y", TP.BOOL)], "bool", opset=18)


# ---- Swish, Mish -----------------------------------------------------------------------------
def sigmoid(z):
    return np.where(z >= 0, 1 / (1 + np.exp(-np.abs(z))), np.exp(-np.abs(z)) / (1 + np.exp(-np.abs(z))))


def softplus(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


SPECIAL = np.array([-1000, -30, -1, 0, 1, 30, 1000, np.inf, -np.inf], np.float64)
xs = np.concatenate([rng.uniform(-8, 8, 58), SPECIAL])
for dt in (np.float32, np.float64, np.float16):
    xi = xs.astype(dt)
    x64 = xi.astype(np.float64)
    with np.errstate(invalid="ignore"):
        sw = np.where(np.isinf(x64) & (x64 < 0), 0.0, x64 * sigmoid(x64))
        sw_a = np.where(np.isinf(x64) & (x64 < 0), 0.0, x64 * sigmoid(0.75 * x64))
        mi = np.where(np.isinf(x64) & (x64 < 0), 0.0, x64 * np.tanh(softplus(x64)))
    w.case(f"swish_{np.dtype(dt).name}", "Swish", [("x", xi)], [("y", sw.astype(dt))], opset=24)
    w.case(f"swish_alpha_{np.dtype(dt).name}", "Swish", [("x", xi)], [("y", sw_a.astype(dt))], opset=24, alpha=0.75)
    w.case(f"mish_{np.dtype(dt).name}", "Mish", [("x", xi)], [("y", mi.astype(dt))], opset=22)
x = rng.uniform(-4, 4, (3, 5)).astype(np.float32)
w.case("mish_opset18", "Mish", [("x", x)], [("y", (x * np.tanh(softplus(x.astype(np.float64)))).astype(np.float32))], opset=18)
w.bad("swish_int_unsupported", "Swish", [("x", np.ones(3, np.int32))], [("y", TP.INT32)], "int32", opset=24)
w.bad("mish_int_unsupported", "Mish", [("x", np.ones(3, np.int32))], [("y", TP.INT32)], "int32", opset=22)

w.done()
