#!/usr/bin/python3
"""Kernel cases for LpNormalization, GroupNormalization, CenterCropPad, Col2Im, AffineGrid and
DeformConv.

Usage: gen_image_misc.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP

from kcase import Writer

w = Writer()
rng = np.random.default_rng(4417)


# ---- LpNormalization -------------------------------------------------------------------------
def lp_ref(x, axis, p):
    x64 = x.astype(np.float64)
    norm = np.sum(np.abs(x64), axis=axis, keepdims=True) if p == 1 else np.sqrt(np.sum(x64 * x64, axis=axis, keepdims=True))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norm == 0, 0.0, x64 / norm).astype(x.dtype)


x = rng.uniform(-3, 3, (3, 4, 5)).astype(np.float32)
x[1, :, 2] = 0  # a zero norm along axis 1
for opset in (1, 22):
    for p in (1, 2):
        for axis in (0, 1, -1):
            w.case(f"lpnorm_opset{opset}_p{p}_axis{axis}".replace("-", "m"), "LpNormalization", [("x", x)],
                   [("y", lp_ref(x, axis, p))], opset=opset, p=p, axis=axis)
w.case("lpnorm_default_f64", "LpNormalization", [("x", x.astype(np.float64))], [("y", lp_ref(x.astype(np.float64), -1, 2))],
       opset=22)
w.case("lpnorm_f16", "LpNormalization", [("x", x.astype(np.float16))], [("y", lp_ref(x.astype(np.float16), 1, 2))],
       opset=22, axis=1)
w.bad("lpnorm_p3", "LpNormalization", [("x", x)], [("y", TP.FLOAT)], "must be 1 or 2", opset=22, p=3)
w.bad("lpnorm_axis_out_of_range", "LpNormalization", [("x", x)], [("y", TP.FLOAT)], "out of range", opset=22, axis=3)


# ---- GroupNormalization ----------------------------------------------------------------------
def group_norm_ref(x, scale, bias, groups, eps, per_channel):
    n, c = x.shape[:2]
    xg = x.astype(np.float64).reshape(n, groups, -1)
    mean = xg.mean(axis=2, keepdims=True)
    var = xg.var(axis=2, keepdims=True)
    norm = ((xg - mean) / np.sqrt(var + eps)).reshape(x.shape)
    bshape = (1, c) + (1,) * (x.ndim - 2)
    if per_channel:
        s, b = scale.astype(np.float64), bias.astype(np.float64)
    else:
        s, b = np.repeat(scale.astype(np.float64), c // groups), np.repeat(bias.astype(np.float64), c // groups)
    return (norm * s.reshape(bshape) + b.reshape(bshape)).astype(x.dtype)


x = rng.normal(1, 2, (2, 6, 3, 4)).astype(np.float32)
for groups in (1, 2, 3, 6):
    sc, bi = rng.uniform(0.5, 2, 6).astype(np.float32), rng.uniform(-1, 1, 6).astype(np.float32)
    w.case(f"groupnorm21_g{groups}", "GroupNormalization", [("x", x), ("scale", sc), ("bias", bi)],
           [("y", group_norm_ref(x, sc, bi, groups, 1e-5, True))], opset=21, num_groups=groups)
    sg, bg = sc[:groups], bi[:groups]
    w.case(f"groupnorm18_g{groups}", "GroupNormalization", [("x", x), ("scale", sg), ("bias", bg)],
           [("y", group_norm_ref(x, sg, bg, groups, 1e-5, False))], opset=18, num_groups=groups)
x3 = rng.normal(0, 1, (3, 4, 7))
sc, bi = rng.uniform(0.5, 2, 4), rng.uniform(-1, 1, 4)
w.case("groupnorm21_f64_eps", "GroupNormalization", [("x", x3), ("scale", sc), ("bias", bi)],
       [("y", group_norm_ref(x3, sc, bi, 2, 0.1, True))], opset=21, num_groups=2, epsilon=0.1)
x2 = rng.normal(0, 1, (2, 4)).astype(np.float32)
w.case("groupnorm21_rank2", "GroupNormalization", [("x", x2), ("scale", sc.astype(np.float32)), ("bias", bi.astype(np.float32))],
       [("y", group_norm_ref(x2, sc, bi, 2, 1e-5, True))], opset=21, num_groups=2)
w.bad("groupnorm_not_divisible", "GroupNormalization", [("x", x), ("scale", np.ones(6, np.float32)), ("bias", np.ones(6, np.float32))],
      [("y", TP.FLOAT)], "not divisible", opset=21, num_groups=4)
w.bad("groupnorm21_scale_per_group", "GroupNormalization", [("x", x), ("scale", np.ones(2, np.float32)), ("bias", np.ones(2, np.float32))],
      [("y", TP.FLOAT)], "must have shape [6]", opset=21, num_groups=2)
w.bad("groupnorm18_scale_per_channel", "GroupNormalization", [("x", x), ("scale", np.ones(6, np.float32)), ("bias", np.ones(6, np.float32))],
      [("y", TP.FLOAT)], "must have shape [2]", opset=18, num_groups=2)
w.done()
