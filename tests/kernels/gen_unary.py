#!/usr/bin/python3
"""Kernel cases for elementwise unary ops (math, activations, predicates) and Cast/CastLike.

Usage: gen_unary.py OUT_DIR (see kcase.py for the layout)."""
import math

import numpy as np
from onnx import TensorProto as TP

from kcase import Writer

w = Writer()
rng = np.random.default_rng(202)
np.seterr(over="ignore")  # exp overflows to inf in the saturating references, as intended
f32 = lambda *a: np.array(a, np.float32)
SPECIAL = f32(-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.7, -3.7, np.nan, np.inf, -np.inf, 0)
sigmoid = lambda x: 1 / (1 + np.exp(-x))
erf = np.vectorize(math.erf)


def domain(kind, n):
    """Random values inside an op's domain, away from its edges."""
    if kind == "unit":
        return rng.uniform(-0.95, 0.95, n)
    if kind == "pos":
        return rng.uniform(0.05, 10, n)
    if kind == "ge1":
        return rng.uniform(1.05, 10, n)
    return rng.uniform(-6, 6, n)


# (op, numpy reference, input domain, attributes, opset)
MATH = [
    ("Abs", np.abs, "any", {}, 13), ("Neg", np.negative, "any", {}, 13), ("Exp", np.exp, "any", {}, 13),
    ("Log", np.log, "pos", {}, 13), ("Sqrt", np.sqrt, "pos", {}, 13), ("Reciprocal", np.reciprocal, "pos", {}, 13),
    ("Sin", np.sin, "any", {}, 7), ("Cos", np.cos, "any", {}, 7), ("Tan", np.tan, "unit", {}, 7),
    ("Asin", np.arcsin, "unit", {}, 7), ("Acos", np.arccos, "unit", {}, 7), ("Atan", np.arctan, "any", {}, 7),
    ("Sinh", np.sinh, "any", {}, 9), ("Cosh", np.cosh, "any", {}, 9), ("Tanh", np.tanh, "any", {}, 13),
    ("Asinh", np.arcsinh, "any", {}, 9), ("Acosh", np.arccosh, "ge1", {}, 9), ("Atanh", np.arctanh, "unit", {}, 9),
    ("Erf", erf, "any", {}, 13), ("Sigmoid", sigmoid, "any", {}, 13), ("Floor", np.floor, "any", {}, 13),
    ("Ceil", np.ceil, "any", {}, 13), ("Relu", lambda x: np.maximum(x, 0), "any", {}, 14),
    ("Softsign", lambda x: x / (1 + np.abs(x)), "any", {}, 1), ("Softplus", lambda x: np.log1p(np.exp(x)), "any", {}, 1),
    ("LeakyRelu", lambda x: np.where(x < 0, 0.3 * x, x), "any", {"alpha": 0.3}, 16),
    ("Elu", lambda x: np.where(x < 0, 0.7 * (np.exp(x) - 1), x), "any", {"alpha": 0.7}, 6),
    ("Selu", lambda x: 1.2 * np.where(x <= 0, 1.5 * (np.exp(x) - 1), x), "any", {"alpha": 1.5, "gamma": 1.2}, 6),
    ("Celu", lambda x: np.maximum(0, x) + np.minimum(0, 2 * (np.exp(x / 2) - 1)), "any", {"alpha": 2.0}, 12),
    ("HardSigmoid", lambda x: np.clip(0.3 * x + 0.4, 0, 1), "any", {"alpha": 0.3, "beta": 0.4}, 6),
    ("HardSwish", lambda x: x * np.clip(x / 6 + 0.5, 0, 1), "any", {}, 14),
    ("ThresholdedRelu", lambda x: np.where(x > 1.5, x, 0), "any", {"alpha": 1.5}, 10),
    ("Shrink", lambda x: np.where(x < -1, x + 0.5, np.where(x > 1, x - 0.5, 0)), "any", {"lambd": 1.0, "bias": 0.5}, 9),
    ("Sign", np.sign, "any", {}, 13),
]
# An odd length (67) leaves a tail after any vector width; float16 and float64 for most ops.
for op, fn, dom, attrs, opset in MATH:
    x = domain(dom, 67)
    for dt in (np.float32, np.float64) + ((np.float16,) if op not in ("Tan", "Sinh", "Cosh") else ()):
        xi = x.astype(dt)
        y = fn(xi.astype(np.float64)).astype(dt)
        w.case(f"{op.lower()}_{np.dtype(dt).name}", op, [("x", xi)], [("y", y)], opset=opset, **attrs)

# Special values, defaults and integer inputs.
w.case("round_halves_to_even", "Round", [("x", SPECIAL)], [("y", np.round(SPECIAL))], opset=11)
w.case("isinf_negative_only", "IsInf", [("x", SPECIAL)], [("y", np.isneginf(SPECIAL))], opset=10, detect_positive=0)
w.case("isinf_both", "IsInf", [("x", SPECIAL.astype(np.float64))], [("y", np.isinf(SPECIAL))], opset=10)
w.case("isnan_f16", "IsNaN", [("x", SPECIAL.astype(np.float16))], [("y", np.isnan(SPECIAL))], opset=13)
nonan = SPECIAL[~np.isnan(SPECIAL)]
w.case("sign_special", "Sign", [("x", nonan)], [("y", np.sign(nonan))], opset=13)
w.case("sign_int", "Sign", [("x", np.array([-7, 0, 9], np.int64))], [("y", np.array([-1, 0, 1], np.int64))], opset=13)
w.case("abs_int8", "Abs", [("x", np.array([-127, -5, 0, 7], np.int8))], [("y", np.array([127, 5, 0, 7], np.int8))], opset=13)
w.case("abs_uint8", "Abs", [("x", np.array([0, 200], np.uint8))], [("y", np.array([0, 200], np.uint8))], opset=13)
w.case("neg_int32", "Neg", [("x", np.array([-2147483647, 5, 0], np.int32))], [("y", np.array([2147483647, -5, 0], np.int32))], opset=13)
w.case("relu_int8", "Relu", [("x", np.array([-128, -1, 0, 127], np.int8))], [("y", np.array([0, 0, 0, 127], np.int8))], opset=14)
w.case("shrink_int8", "Shrink", [("x", np.array([-5, -1, 0, 1, 5], np.int8))], [("y", np.array([-3, 0, 0, 0, 3], np.int8))],
       opset=9, lambd=1.5, bias=2.0)
w.case("not_2d", "Not", [("x", np.array([[True, False], [False, False]]))], [("y", np.array([[False, True], [True, True]]))], opset=1)
w.case("sigmoid_saturates", "Sigmoid", [("x", f32(-1000, -20, 0, 20, 1000))], [("y", sigmoid(f32(-1000, -20, 0, 20, 1000).astype(np.float64)).astype(np.float32))], opset=13)
w.case("softplus_large", "Softplus", [("x", f32(-1000, 1000, 0))], [("y", f32(0, 1000, math.log(2)))], opset=1)
w.case("selu_defaults_opset1", "Selu", [("x", f32(-1, 1))], [("y", (1.0507 * np.where(f32(-1, 1) < 0, 1.6732 * (np.exp(f32(-1, 1)) - 1), f32(-1, 1))).astype(np.float32))], opset=1)
w.case("celu_default_alpha", "Celu", [("x", SPECIAL[:8])], [("y", np.maximum(0, SPECIAL[:8]) + np.minimum(0, np.exp(SPECIAL[:8]) - 1))], opset=12)
w.case("exp_empty", "Exp", [("x", np.zeros((0, 4), np.float32))], [("y", np.zeros((0, 4), np.float32))], opset=13)
w.bad("not_on_float", "Not", [("x", f32(1))], [("y", TP.BOOL)], "float32", opset=1)

# Cast: numeric conversions (float to integer truncates; integer narrowing keeps the low bits,
# the spec's "truncate bits"), strings in plain notation.
x = f32(1.7, -1.9, 200.2, 0, 42.5)
w.case("cast_f32_to_i32", "Cast", [("x", x)], [("y", np.array([1, -1, 200, 0, 42], np.int32))], opset=13, to=TP.INT32)
w.case("cast_f32_to_u8", "Cast", [("x", f32(1.7, 200.2, 255))], [("y", np.array([1, 200, 255], np.uint8))], opset=13, to=TP.UINT8)
w.case("cast_i64_to_i8_wraps", "Cast", [("x", np.array([127, 128, -129, 256], np.int64))],
       [("y", np.array([127, -128, 127, 0], np.int8))], opset=13, to=TP.INT8)
w.case("cast_i32_to_bool", "Cast", [("x", np.array([0, 1, -5], np.int32))], [("y", np.array([False, True, True]))], opset=13, to=TP.BOOL)
w.case("cast_bool_to_f32", "Cast", [("x", np.array([True, False]))], [("y", f32(1, 0))], opset=13, to=TP.FLOAT)
w.case("cast_f64_to_f16", "Cast", [("x", np.array([0.1, 65504, 1e-8, -2.5]))], [("y", np.array([0.1, 65504, 1e-8, -2.5]).astype(np.float16))],
       opset=13, to=TP.FLOAT16)
w.case("cast_u16_to_f64", "Cast", [("x", np.array([0, 65535], np.uint16))], [("y", np.array([0, 65535.0]))], opset=13, to=TP.DOUBLE)
w.case("cast_same_type", "Cast", [("x", SPECIAL)], [("y", SPECIAL)], opset=13, to=TP.FLOAT)
w.case("cast_empty", "Cast", [("x", np.zeros((0, 3), np.float32))], [("y", np.zeros((0, 3), np.int32))], opset=13, to=TP.INT32)
w.case("cast_opset1_type_name", "Cast", [("x", f32(1.5))], [("y", np.array([1.5]))], opset=1, to="DOUBLE")
w.case("cast_opset5_type_name", "Cast", [("x", f32(1.9, -1.9, 3))], [("y", np.array([1, -1, 3], np.int32))], opset=5, to="INT32")
w.case("cast_int_to_string", "Cast", [("x", np.array([-5, 0, 123456789012], np.int64))],
       [("y", np.array(["-5", "0", "123456789012"], dtype=object))], opset=13, to=TP.STRING)
w.case("cast_double_to_string", "Cast", [("x", np.array([0.1, 1 / 3, -2.25]))],
       [("y", np.array(["0.1", "0.3333333333333333", "-2.25"], dtype=object))], opset=13, to=TP.STRING)
w.case("cast_string_to_int", "Cast", [("x", np.array(["12", "-7", "+3"], dtype=object))], [("y", np.array([12, -7, 3], np.int64))],
       opset=13, to=TP.INT64)
w.case("cast_string_to_float", "Cast", [("x", np.array(["1e-5", "1E8", "-INF", "inf", "NaN", "3.25"], dtype=object))],
       [("y", f32(1e-5, 1e8, -np.inf, np.inf, np.nan, 3.25))], opset=13, to=TP.FLOAT)
w.case("castlike_to_string", "CastLike", [("x", np.array([1.5, 0.25])), ("like", np.array(["a"], dtype=object))],
       [("y", np.array(["1.5", "0.25"], dtype=object))], opset=15)
w.case("castlike_to_u8", "CastLike", [("x", f32(3.9, 0)), ("like", np.zeros(0, np.uint8))], [("y", np.array([3, 0], np.uint8))], opset=15)
w.done()
