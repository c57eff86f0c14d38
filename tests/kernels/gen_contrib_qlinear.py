#!/usr/bin/python3
"""Kernel cases for the com.microsoft QLinear* ops that ORT's QOperator quantiser emits:
QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearGlobalAveragePool,
QLinearConcat and QGemm. References are numpy float32 arithmetic in the order each kernel's
header comment gives, rounded half to even, following the ops' published definitions.

Usage: gen_contrib_qlinear.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP
from onnx import helper

from kcase import Writer, model, to_proto, value_info

w = Writer()
rng = np.random.default_rng(7171)
MS = [("com.microsoft", 1)]
f32 = np.float32


def ints(dtype, *shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, size=shape).astype(dtype)


def q(v, zp, dtype):
    info = np.iinfo(dtype)
    return np.clip(np.rint(v.astype(f32)) + f32(zp), info.min, info.max).astype(dtype)


def case(name, op, inputs, expected, **attrs):
    w.case(name, op, inputs, [("Y", expected)], domain="com.microsoft", extra_opsets=MS, **attrs)


# QLinearAdd / QLinearMul: same shapes, broadcasting, int8, omitted zero points.
for dt, sa, sb, sc in [(np.uint8, (2, 3, 4), (2, 3, 4), "same"), (np.int8, (2, 3, 4), (3, 1), "broadcast"),
                       (np.uint8, (5,), (1,), "scalar_b")]:
    a, b = ints(dt, *sa), ints(dt, *sb)
    a_s, b_s, c_s = f32(0.05), f32(0.02), f32(0.07)
    za, zb, zc = dt(3), dt(250 if dt == np.uint8 else -9), dt(128 if dt == np.uint8 else 4)
    ai, bi = a.astype(np.int32) - np.int32(za), b.astype(np.int32) - np.int32(zb)
    add = ai.astype(f32) * (a_s / c_s) + bi.astype(f32) * (b_s / c_s)
    mul = (ai * bi).astype(f32) * (a_s * b_s / c_s)
    inputs = [("A", a), ("A_scale", a_s), ("A_zero_point", np.array(za)), ("B", b), ("B_scale", b_s),
              ("B_zero_point", np.array(zb)), ("C_scale", c_s), ("C_zero_point", np.array(zc))]
    case(f"add_{np.dtype(dt).name}_{sc}", "QLinearAdd", inputs, q(add, zc, dt))
    case(f"mul_{np.dtype(dt).name}_{sc}", "QLinearMul", inputs, q(mul, zc, dt))
a, b = ints(np.uint8, 3, 4), ints(np.uint8, 3, 4)
case("add_no_zero_points", "QLinearAdd",
     [("A", a), ("A_scale", f32(0.1)), ("A_zero_point", None), ("B", b), ("B_scale", f32(0.3)), ("B_zero_point", None),
      ("C_scale", f32(0.5))],
     q(a.astype(f32) * (f32(0.1) / f32(0.5)) + b.astype(f32) * (f32(0.3) / f32(0.5)), 0, np.uint8))
w.bad("add_mixed_types", "QLinearAdd",
      [("A", ints(np.uint8, 2)), ("A_scale", f32(1)), ("A_zero_point", np.array(0, np.uint8)), ("B", ints(np.int8, 2)),
       ("B_scale", f32(1)), ("B_zero_point", np.array(0, np.int8)), ("C_scale", f32(1)),
       ("C_zero_point", np.array(0, np.uint8))], [("Y", TP.UINT8)], "must both be uint8 or both int8",
      domain="com.microsoft", extra_opsets=MS)
w.bad("add_no_broadcast", "QLinearAdd",
      [("A", ints(np.uint8, 2, 3)), ("A_scale", f32(1)), ("A_zero_point", np.array(0, np.uint8)),
       ("B", ints(np.uint8, 4)), ("B_scale", f32(1)), ("B_zero_point", np.array(0, np.uint8)), ("C_scale", f32(1)),
       ("C_zero_point", np.array(0, np.uint8))], [("Y", TP.UINT8)], "broadcast", domain="com.microsoft", extra_opsets=MS)

# QLinearSigmoid / QLinearLeakyRelu: every input value, both types.
for dt in (np.uint8, np.int8):
    info = np.iinfo(dt)
    x = np.arange(info.min, info.max + 1).astype(dt).reshape(16, 16)
    xs, zx, ys = f32(0.06), dt(100 if dt == np.uint8 else -20), f32(1 / 255.)
    zy = dt(0 if dt == np.uint8 else -128)
    xf = xs * (x.astype(np.int32) - np.int32(zx)).astype(f32)
    sig = (f32(1) / (f32(1) + np.exp(-xf))).astype(f32)
    inputs = [("X", x), ("X_scale", xs), ("X_zero_point", np.array(zx)), ("Y_scale", ys), ("Y_zero_point", np.array(zy))]
    case(f"sigmoid_{np.dtype(dt).name}", "QLinearSigmoid", inputs, q(sig / ys, zy, dt))
    ys2, zy2 = f32(0.05), dt(60 if dt == np.uint8 else 0)
    inputs2 = inputs[:3] + [("Y_scale", ys2), ("Y_zero_point", np.array(zy2))]
    lr = np.where(xf >= 0, xf, f32(0.1) * xf).astype(f32)
    case(f"leaky_relu_{np.dtype(dt).name}", "QLinearLeakyRelu", inputs2, q(lr / ys2, zy2, dt), alpha=0.1)
x = ints(np.uint8, 2, 3)
case("leaky_relu_default_alpha", "QLinearLeakyRelu", [("X", x), ("X_scale", f32(0.1)), ("X_zero_point", np.array(128, np.uint8)),
     ("Y_scale", f32(0.1)), ("Y_zero_point", np.array(128, np.uint8))],
     q(np.where(x >= 128, (f32(0.1) * (x.astype(f32) - 128)), f32(0.01) * f32(0.1) * (x.astype(f32) - 128)) / f32(0.1),
       128, np.uint8))

# QLinearGlobalAveragePool: NCHW and channels-last, both types.
for dt, last in [(np.uint8, 0), (np.int8, 0), (np.uint8, 1)]:
    x = ints(dt, 2, 5, 7, 6) if not last else ints(dt, 2, 7, 6, 5)
    xs, zx, ys, zy = f32(0.03), dt(7), f32(0.02), dt(120 if dt == np.uint8 else -3)
    axes = (2, 3) if not last else (1, 2)
    sums = (x.astype(np.int64) - np.int64(zx)).sum(axis=axes, keepdims=True)
    v = (xs / ys) * (sums.astype(f32) / f32(42))
    case(f"global_average_pool_{np.dtype(dt).name}_{'nhwc' if last else 'nchw'}", "QLinearGlobalAveragePool",
         [("X", x), ("x_scale", xs), ("x_zero_point", np.array(zx)), ("y_scale", ys), ("y_zero_point", np.array(zy))],
         q(v, zy, dt), channels_last=last)
w.bad("global_average_pool_zero_point_required", "QLinearGlobalAveragePool",
      [("X", ints(np.uint8, 1, 2, 3, 3)), ("x_scale", f32(1)), ("x_zero_point", None), ("y_scale", f32(1)),
       ("y_zero_point", np.array(0, np.uint8))], [("Y", TP.UINT8)], "x_zero_point is missing",
      domain="com.microsoft", extra_opsets=MS)

# QLinearConcat: requantised inputs, one already at Y's parameters, negative axis.
x1, x2, x3 = ints(np.uint8, 2, 3, 4), ints(np.uint8, 2, 1, 4), ints(np.uint8, 2, 2, 4)
ys, zy = f32(0.1), np.uint8(10)
parts = [q((x1.astype(np.int32) - 5).astype(f32) * (f32(0.2) / ys), zy, np.uint8), x2,
         q((x3.astype(np.int32) - 0).astype(f32) * (f32(0.05) / ys), zy, np.uint8)]
case("concat_axis1", "QLinearConcat",
     [("Y_scale", ys), ("Y_zero_point", np.array(zy)), ("X1", x1), ("X1_scale", f32(0.2)), ("X1_zero_point", np.array(5, np.uint8)),
      ("X2", x2), ("X2_scale", ys), ("X2_zero_point", np.array(zy)), ("X3", x3), ("X3_scale", f32(0.05)),
      ("X3_zero_point", np.array(0, np.uint8))], np.concatenate(parts, axis=1), axis=-2)
y1, y2 = ints(np.int8, 3, 2), ints(np.int8, 3, 3)
case("concat_int8_last_axis", "QLinearConcat",
     [("Y_scale", f32(0.5)), ("Y_zero_point", np.array(-1, np.int8)), ("X1", y1), ("X1_scale", f32(0.25)),
      ("X1_zero_point", np.array(2, np.int8)), ("X2", y2), ("X2_scale", f32(1.0)), ("X2_zero_point", np.array(0, np.int8))],
     np.concatenate([q((y1.astype(np.int32) - 2).astype(f32) * f32(0.5), -1, np.int8),
                     q(y2.astype(f32) * f32(2.0), -1, np.int8)], axis=1), axis=1)


# QGemm: float and quantised output, transB, per-column b scale/zero point, C [N] and (M, N),
# alpha; each with B fed (reference) and constant (oneDNN, when B - zp fits int8).
def qgemm_cases(name, a, a_s, a_zp, b, b_s, b_zp, c=None, y_s=None, y_zp=None, alpha=1.0, trans_a=0, trans_b=0):
    a2 = a.T if trans_a else a
    b2 = b.T if trans_b else b
    bz = b_zp.astype(np.int64) if b_zp.size > 1 else np.int64(b_zp)
    acc = (a2.astype(np.int64) - np.int64(a_zp)) @ (b2.astype(np.int64) - bz)
    s = (f32(a_s) * np.asarray(b_s, f32)).astype(f32) * f32(alpha)
    yf = acc.astype(np.int32).astype(f32) * s
    if c is not None:
        yf = yf + c.astype(f32) * s
    expected = yf.astype(f32) if y_s is None else q(yf / f32(y_s), y_zp, y_zp.dtype)
    inputs = [("A", a), ("a_scale", f32(a_s)), ("a_zero_point", np.array(a_zp, a.dtype)), ("B", b),
              ("b_scale", np.asarray(b_s, f32)), ("b_zero_point", b_zp), ("C", c),
              ("y_scale", None if y_s is None else f32(y_s)), ("y_zero_point", y_zp)]
    attrs = dict(alpha=alpha, transA=trans_a, transB=trans_b)
    case(f"qgemm_{name}_b_input", "QGemm", inputs, expected, **attrs)
    names = [n if v is not None else "" for n, v in inputs]
    while names and names[-1] == "":
        names.pop()
    constant = ("B", "b_zero_point", "b_scale")
    inits = [to_proto(v, n) for n, v in inputs if v is not None and n in constant]
    feeds = [(n, v) for n, v in inputs if v is not None and n not in constant]
    m = model([helper.make_node("QGemm", names, ["Y"], domain="com.microsoft", **attrs)],
              [value_info(n, v) for n, v in feeds], [value_info("Y", expected)], initializers=inits, extra_opsets=MS)
    w.model_case(f"qgemm_{name}_b_constant", m, [v for _, v in feeds], [expected])


qgemm_cases("float_out_transb", ints(np.uint8, 4, 32), 0.02, 130, ints(np.int8, 10, 32), 0.01, np.array(0, np.int8),
            c=ints(np.int32, 10) // 1000, trans_b=1)
qgemm_cases("u8_out_per_column", ints(np.uint8, 3, 16), 0.05, 7, ints(np.int8, 16, 6), rng.uniform(0.001, 0.01, 6).astype(f32),
            np.zeros(6, np.int8), c=ints(np.int32, 3, 6) // 100000, y_s=0.03, y_zp=np.array(100, np.uint8), alpha=0.5)
qgemm_cases("s8_a_trans_a", ints(np.int8, 12, 5), 0.04, -3, ints(np.uint8, 12, 7), 0.02, np.array(128, np.uint8),
            y_s=0.2, y_zp=np.array(-5, np.int8), trans_a=1)
w.bad("qgemm_y_scale_without_zero_point", "QGemm",
      [("A", ints(np.uint8, 2, 3)), ("a_scale", f32(1)), ("a_zero_point", np.array(0, np.uint8)), ("B", ints(np.int8, 3, 2)),
       ("b_scale", f32(1)), ("b_zero_point", np.array(0, np.int8)), ("C", None), ("y_scale", f32(1))],
      [("Y", TP.FLOAT)], "without y_zero_point", domain="com.microsoft", extra_opsets=MS)
w.done()
