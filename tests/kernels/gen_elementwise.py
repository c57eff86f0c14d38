#!/usr/bin/python3
"""Kernel cases for elementwise binary and variadic ops: arithmetic, comparison, logic,
Where, Clip, PRelu, BitShift; numpy and legacy (opset < 7) broadcasting; integer edge cases.

Usage: gen_elementwise.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP

from kcase import Writer

w = Writer()
rng = np.random.default_rng(101)
i32 = lambda *a: np.array(a, np.int32)
i64 = lambda *a: np.array(a, np.int64)
f32 = lambda *a: np.array(a, np.float32)
rnd = lambda *s: rng.standard_normal(s).astype(np.float32)
IMIN = np.iinfo(np.int32).min

# Integer Div truncates toward zero (the quotient converted back to the integer type).
w.case("div_int_trunc", "Div", [("a", i32(7, -7, 7, -9, 6, IMIN)), ("b", i32(2, 2, -2, 4, 3, 2))],
       [("y", i32(3, -3, -3, -2, 2, IMIN // 2))])
w.case("div_uint8", "Div", [("a", np.array([255, 7, 0], np.uint8)), ("b", np.array([16, 7, 3], np.uint8))],
       [("y", np.array([15, 1, 0], np.uint8))])
# Mod: fmod=0 takes the divisor's sign (Python %), fmod=1 the dividend's (C fmod).
# INT_MIN % -1 is 0 (a naive C remainder traps on it).
a, b = i32(7, -7, 7, -7, IMIN, 5), i32(3, 3, -3, -3, -1, 5)
w.case("mod_int", "Mod", [("a", a), ("b", b)], [("y", i32(1, 2, -2, -1, 0, 0))])
w.case("mod_int_fmod", "Mod", [("a", a), ("b", b)], [("y", i32(1, -1, 1, -1, 0, 0))], fmod=1)
w.case("mod_int8", "Mod", [("a", np.array([-128, 127, -5], np.int8)), ("b", np.array([3, -2, 7], np.int8))],
       [("y", np.array([1, -1, 2], np.int8))])
x, y = rnd(3, 4) * 5, rnd(4) * 2 + 0.1
w.case("mod_float_fmod_bcast", "Mod", [("a", x), ("b", y)], [("y", np.fmod(x, y))], fmod=1)
w.bad("mod_float_without_fmod", "Mod", [("a", f32(1)), ("b", f32(2))], [("y", TP.FLOAT)], "requires fmod=1")

# Legacy broadcasting (opset 1..6): B is a suffix of A, or starts at `axis`, or has one element.
a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
w.case("legacy_add_axis1", "Add", [("a", a), ("b", f32(10, 20, 30))], [("y", a + f32(10, 20, 30).reshape(3, 1))],
       opset=6, broadcast=1, axis=1)
w.case("legacy_add_suffix", "Add", [("a", a), ("b", np.full((3, 4), 0.5, np.float32))], [("y", a + 0.5)],
       opset=6, broadcast=1)
w.case("legacy_mul_axis0", "Mul", [("a", a), ("b", f32(2, 3))], [("y", a * f32(2, 3).reshape(2, 1, 1))],
       opset=6, broadcast=1, axis=0)
w.case("legacy_sub_scalar", "Sub", [("a", a), ("b", np.array(1, np.float32))], [("y", a - 1)], opset=6, broadcast=1)
w.case("legacy_div_one_elem", "Div", [("a", a), ("b", np.full((1, 1), 4, np.float32))], [("y", a / 4)],
       opset=6, broadcast=1)
w.case("legacy_pow", "Pow", [("a", a), ("b", f32(2))], [("y", a ** 2)], opset=6, broadcast=1)
w.case("legacy_equal_axis", "Equal", [("a", np.arange(6, dtype=np.int32).reshape(2, 3)), ("b", i32(0, 4, 2))],
       [("y", np.arange(6).reshape(2, 3) == np.array([0, 4, 2]))], opset=1, broadcast=1, axis=1)
w.bad("legacy_no_broadcast_attr", "Add", [("a", a), ("b", f32(1, 2, 3, 4))], [("y", TP.FLOAT)],
      "broadcast=0", opset=6)

# Numpy broadcasting: mixed ranks, size-1 dims on both sides, empty tensors.
p, q = rnd(4, 1, 5), rnd(3, 1)
w.case("add_bcast_both", "Add", [("a", p), ("b", q)], [("y", p + q)])
w.case("sub_bcast_both", "Sub", [("a", q), ("b", p)], [("y", q - p)])
p, q = rnd(2, 3, 4, 5), rnd(3, 1, 5)
w.case("mul_bcast_4d", "Mul", [("a", p), ("b", q)], [("y", p * q)])
w.case("div_bcast_4d", "Div", [("a", p), ("b", q + 3)], [("y", p / (q + 3))])
p = rnd(3, 70)
w.case("add_f64_scalar", "Add", [("a", p.astype(np.float64)), ("b", np.array(0.25))], [("y", p.astype(np.float64) + 0.25)])
w.case("add_int8", "Add", [("a", np.array([[1, -2, 3]], np.int8)), ("b", np.array([[10], [-20]], np.int8))],
       [("y", np.array([[11, 8, 13], [-19, -22, -17]], np.int8))])
w.case("mul_uint64", "Mul", [("a", np.array([3, 2**40], np.uint64)), ("b", np.array([2**20], np.uint64))],
       [("y", np.array([3 * 2**20, 2**60], np.uint64))])
w.case("add_empty", "Add", [("a", np.zeros((0, 3), np.float32)), ("b", np.zeros((1, 3), np.float32))],
       [("y", np.zeros((0, 3), np.float32))])
w.bad("add_bad_broadcast", "Add", [("a", np.zeros((2, 3), np.float32)), ("b", np.zeros((4,), np.float32))],
      [("y", TP.FLOAT)], "cannot be broadcast")

# Pow: integer and mixed-type operands (the output has the base's type).
w.case("pow_int_exact", "Pow", [("a", i64(1, -1, -1, 0, 3, 2)), ("b", i64(-3, -3, -2, 5, 4, 10))],
       [("y", i64(1, -1, 1, 0, 81, 1024))])
w.case("pow_int_base_float_exp", "Pow", [("a", i32(4, 2, 9, -2)), ("b", f32(0.5, 3, 0.5, 3))], [("y", i32(2, 8, 3, -8))])
h = np.array([1.5, 2, 3], np.float16)
w.case("pow_f16_f32", "Pow", [("a", h), ("b", f32(2, 0.5, -1))],
       [("y", np.power(h.astype(np.float32), f32(2, 0.5, -1)).astype(np.float16))])
w.case("pow_double_int8", "Pow", [("a", np.array([1.5, 2, 3])), ("b", np.array([2, -1, 3], np.int8))],
       [("y", np.array([2.25, 0.5, 27.0]))])
p = np.abs(rnd(2, 5)) + 0.1
w.case("pow_bcast", "Pow", [("a", p), ("b", f32(2, 0.5, -1, 3, 0))], [("y", np.power(p, f32(2, 0.5, -1, 3, 0)))])

# Variadic Sum / Mean / Max / Min with three-way broadcasting.
p, q, r = rnd(3, 1), rnd(1, 4), rnd(4)
w.case("sum3_bcast", "Sum", [("a", p), ("b", q), ("c", r)], [("y", p + q + r)])
w.case("mean3_bcast", "Mean", [("a", p), ("b", q), ("c", r)], [("y", (p + q + r) / 3)])
w.case("max3_bcast", "Max", [("a", p), ("b", q), ("c", r)], [("y", np.maximum(np.maximum(p, q), r))])
w.case("min2_int", "Min", [("a", i64(5, -3, 7)), ("b", i64(2))], [("y", i64(2, -3, 2))], opset=13)
w.case("sum1", "Sum", [("a", p)], [("y", p)])

# Comparisons and logic (NaN compares false in every ordered comparison).
l, m = f32(1, np.nan, 3, -1, 2), f32(1, 1, np.nan, 2, -2)
for op, fn in [("Less", np.less), ("LessOrEqual", np.less_equal), ("Greater", np.greater),
               ("GreaterOrEqual", np.greater_equal), ("Equal", np.equal)]:
    w.case(f"{op.lower()}_nan", op, [("a", l), ("b", m)], [("y", fn(l, m))])
w.case("greater_scalar_int", "Greater", [("a", np.array(3, np.int64)), ("b", i64(1, 3, 5))],
       [("y", np.array([True, False, False]))])
w.case("equal_string", "Equal", [("a", np.array(["a", "b", ""], dtype=object)), ("b", np.array(["a", "c", ""], dtype=object))],
       [("y", np.array([True, False, True]))], opset=19)
b1, b2 = rng.random((2, 1, 3)) > 0.5, rng.random((4, 1)) > 0.5
for op, fn in [("And", np.logical_and), ("Or", np.logical_or), ("Xor", np.logical_xor)]:
    w.case(f"{op.lower()}_bcast", op, [("a", b1), ("b", b2)], [("y", fn(b1, b2))])

# BitShift: bits shifted past the width are gone.
w.case("bitshift_left_wide", "BitShift", [("x", np.array([1, 1, 255, 3], np.uint8)), ("s", np.array([7, 8, 1, 200], np.uint8))],
       [("y", np.array([128, 0, 254, 0], np.uint8))], direction="LEFT")
w.case("bitshift_right_bcast", "BitShift", [("x", np.array([[2**32 - 1], [1000]], np.uint32)), ("s", np.array([0, 4, 31], np.uint32))],
       [("y", np.array([[2**32 - 1, 2**28 - 1, 1], [1000, 62, 0]], np.uint32))], direction="RIGHT")

# Where: strings, three-way broadcast, empty.
c = np.array([[True], [False]])
w.case("where_string", "Where", [("c", c), ("x", np.array(["a", "b", "c"], dtype=object)), ("y", np.array(["x"], dtype=object))],
       [("z", np.where(c, np.array(["a", "b", "c"]), "x").astype(object))])
x, y, cc = rng.standard_normal((2, 1, 4)), rng.standard_normal((3, 1)), rng.random((1, 3, 1)) > 0.5
w.case("where_bcast3", "Where", [("c", cc), ("x", x), ("y", y)], [("z", np.where(cc, x, y))])
w.case("where_empty", "Where", [("c", np.zeros((0,), bool)), ("x", f32(1)), ("y", f32(2))], [("z", np.zeros((0,), np.float32))])

# Clip: min > max gives max everywhere (Clip spec); omitted min; legacy attributes.
w.case("clip_min_gt_max", "Clip", [("x", f32(-2, 0, 5)), ("lo", np.array(3, np.float32)), ("hi", np.array(1, np.float32))],
       [("y", f32(1, 1, 1))])
w.case("clip_only_max_int", "Clip", [("x", i64(-5, 0, 5)), ("lo", None), ("hi", np.array(2, np.int64))], [("y", i64(-5, 0, 2))])
w.case("clip_uint8", "Clip", [("x", np.array([0, 100, 255], np.uint8)), ("lo", np.array(10, np.uint8)), ("hi", np.array(200, np.uint8))],
       [("y", np.array([10, 100, 200], np.uint8))])
w.case("clip_legacy", "Clip", [("x", f32(-2, 0, 5))], [("y", f32(-1, 0, 1))], opset=6, min=-1.0, max=1.0)
w.case("clip_legacy_no_max", "Clip", [("x", f32(-2, 0, 5))], [("y", f32(-1, 0, 5))], opset=6, min=-1.0)
w.bad("clip_min_not_scalar", "Clip", [("x", f32(-2, 0, 5)), ("lo", f32(0, 1))], [("y", TP.FLOAT)], "one element")

# PRelu: slope broadcasts unidirectionally to X.
x, s = rnd(2, 3, 4), rnd(3, 1)
w.case("prelu_bcast", "PRelu", [("x", x), ("s", s)], [("y", np.where(x < 0, x * s, x))])
w.case("prelu_int", "PRelu", [("x", i32(-3, 4)), ("s", i32(2, 2))], [("y", i32(-6, 4))], opset=16)
w.bad("prelu_slope_rank", "PRelu", [("x", x), ("s", np.zeros((2, 1, 1, 1), np.float32))], [("y", TP.FLOAT)], "does not broadcast")
w.done()
