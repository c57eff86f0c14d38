#!/usr/bin/python3
"""Kernel cases for QLinearConv with constant weights, the form quantisers write and the one
onyx runs through oneDNN's int8 convolution (weights packed in prepare): 1-D to 3-D, groups
and depthwise, strides, dilations, asymmetric pads, per-tensor and per-channel scales and
weight zero points, uint8 and int8 x and y, bias, ties of the requantisation. Each case also
runs with w fed at run time (the exact reference path). References are numpy integer
arithmetic following the ONNX definition:

  y = saturate(round_half_even(float32(conv(x - xz, w - wz) + B) * float32(xs * ws / ys)) + yz)

Usage: gen_qlinear_conv.py OUT_DIR (see kcase.py for the layout)."""
import itertools

import numpy as np
from onnx import TensorProto as TP
from onnx import helper

from kcase import Writer, model, to_proto, value_info

w = Writer()
rng = np.random.default_rng(9090)


def ints(dtype, *shape, lo=None, hi=None):
    info = np.iinfo(dtype)
    return rng.integers(info.min if lo is None else lo, (info.max if hi is None else hi) + 1, size=shape).astype(dtype)


def int_conv(x, w, group, strides, pads, dilations):
    """conv of int64 arrays x (N, C, D...) and w (M, C/g, k...), zero padding."""
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + nd]) for i in range(nd)])
    n, m = x.shape[0], w.shape[0]
    cg, mg = w.shape[1], m // group
    out = [(xp.shape[2 + i] - (dilations[i] * (w.shape[2 + i] - 1) + 1)) // strides[i] + 1 for i in range(nd)]
    y = np.zeros([n, m] + out, np.int64)
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * mg:(g + 1) * mg]
        for taps in itertools.product(*[range(k) for k in w.shape[2:]]):
            sl = tuple(slice(taps[i] * dilations[i], taps[i] * dilations[i] + strides[i] * (out[i] - 1) + 1, strides[i])
                       for i in range(nd))
            patch = xs[(slice(None), slice(None)) + sl]  # (N, C/g, out...)
            wt = ws[(slice(None), slice(None)) + tuple(taps)]  # (M/g, C/g)
            y[:, g * mg:(g + 1) * mg] += np.einsum("nc...,mc->nm...", patch, wt)
    return y


def reference(x, xs, xz, wq, ws, wz, ys, yz, bias, group, strides, pads, dilations):
    m = wq.shape[0]
    wz_b = wz.astype(np.int64).reshape((-1,) + (1,) * (wq.ndim - 1)) if wz.size > 1 else np.int64(wz)
    acc = int_conv(x.astype(np.int64) - np.int64(xz), wq.astype(np.int64) - wz_b, group, strides, pads, dilations)
    if bias is not None:
        acc += bias.astype(np.int64).reshape((1, m) + (1,) * (x.ndim - 2))
    mult = (np.float32(xs) * np.asarray(ws, np.float32)) / np.float32(ys)
    mult = mult.reshape((1, -1) + (1,) * (x.ndim - 2)) if mult.size > 1 else mult
    v = np.rint(acc.astype(np.int32).astype(np.float32) * mult) + np.float32(yz)
    info = np.iinfo(yz.dtype)
    return np.clip(v, info.min, info.max).astype(yz.dtype)


def cases(name, x, xs, xz, wq, ws, wz, ys, yz, bias=None, group=1, strides=None, pads=None, dilations=None):
    nd = x.ndim - 2
    strides = strides or [1] * nd
    pads = pads or [0] * (2 * nd)
    dilations = dilations or [1] * nd
    expected = reference(x, xs, xz, wq, ws, wz, ys, yz, bias, group, strides, pads, dilations)
    attrs = dict(group=group, strides=strides, pads=pads, dilations=dilations, kernel_shape=list(wq.shape[2:]))
    xs, ys, xz = np.array(xs, np.float32), np.array(ys, np.float32), np.array(xz, x.dtype)
    ws = np.array(ws, np.float32)
    inputs = [("x", x), ("xs", xs), ("xz", xz), ("w", wq), ("ws", ws), ("wz", wz), ("ys", ys), ("yz", yz)]
    if bias is not None:
        inputs.append(("b", bias))
    names = [n for n, _ in inputs]
    node = helper.make_node("QLinearConv", names, ["y"], **attrs)
    # Weights fed: the reference path.
    m = model([node], [value_info(n, v) for n, v in inputs], [value_info("y", expected)], opset=13)
    w.model_case(f"{name}_w_input", m, [v for _, v in inputs], [expected])
    # Everything but x constant, as quantisers write it: the oneDNN path.
    inits = [to_proto(v, n) for n, v in inputs if n != "x"]
    m = model([node], [value_info("x", x)], [value_info("y", expected)], initializers=inits, opset=13)
    w.model_case(f"{name}_w_constant", m, [x], [expected])


f32 = np.float32
# ResNet-like 3x3 and 1x1, uint8 x and y, int8 weights with zero point 0, per-channel scales.
x = ints(np.uint8, 1, 16, 9, 9)
cases("u8_3x3_pad1_per_channel", x, 0.02, 128, ints(np.int8, 32, 16, 3, 3), rng.uniform(0.001, 0.01, 32).astype(f32),
      np.zeros(32, np.int8), 0.4, np.array(5, np.uint8), bias=ints(np.int32, 32, lo=-5000, hi=5000), pads=[1, 1, 1, 1])
cases("u8_1x1_stride2", ints(np.uint8, 2, 24, 8, 7), 0.05, 3, ints(np.int8, 16, 24, 1, 1), 0.004, np.array(0, np.int8),
      0.3, np.array(0, np.uint8), bias=ints(np.int32, 16, lo=-900, hi=900), strides=[2, 2])
# int8 x and y, asymmetric pads, dilation, stride, no bias.
cases("s8_dilated_asym_pads", ints(np.int8, 1, 8, 11, 10), 0.03, -4, ints(np.int8, 12, 8, 3, 2), 0.01,
      np.array(0, np.int8), 0.7, np.array(-3, np.int8), strides=[2, 1], pads=[2, 0, 1, 1], dilations=[2, 1])
# Grouped and depthwise (MobileNet's 3x3), per-channel weight zero points (int8 and uint8 weights).
cases("u8_group2_w_zero_points", ints(np.uint8, 1, 8, 7, 7), 0.02, 100, ints(np.int8, 6, 4, 3, 3, lo=-100, hi=100),
      rng.uniform(0.002, 0.02, 6).astype(f32), np.array([0, 3, -5, 7, 0, -1], np.int8), 0.25, np.array(9, np.uint8),
      bias=ints(np.int32, 6, lo=-300, hi=300), group=2, pads=[1, 1, 1, 1])
cases("u8_depthwise_stride2", ints(np.uint8, 1, 32, 12, 12), 0.02, 128, ints(np.int8, 32, 1, 3, 3),
      rng.uniform(0.002, 0.02, 32).astype(f32), np.zeros(32, np.int8), 0.1, np.array(128, np.uint8),
      bias=ints(np.int32, 32, lo=-300, hi=300), group=32, strides=[2, 2], pads=[1, 1, 1, 1])
cases("u8_weights_zero_point_128", ints(np.uint8, 1, 5, 6, 6), 0.1, 10, ints(np.uint8, 4, 5, 2, 2), 0.02,
      np.array(128, np.uint8), 1.5, np.array(20, np.uint8))
# 1-D and 3-D.
cases("u8_1d", ints(np.uint8, 2, 6, 20), 0.05, 17, ints(np.int8, 10, 6, 5), rng.uniform(0.001, 0.01, 10).astype(f32),
      np.zeros(10, np.int8), 0.2, np.array(1, np.uint8), bias=ints(np.int32, 10, lo=-100, hi=100), pads=[2, 2], strides=[3])
cases("s8_3d", ints(np.int8, 1, 4, 5, 6, 5), 0.05, 0, ints(np.int8, 6, 4, 3, 3, 3), 0.005, np.array(0, np.int8), 0.6,
      np.array(0, np.int8), bias=ints(np.int32, 6, lo=-500, hi=500), pads=[1, 1, 1, 1, 1, 1])
# Saturation both ways and exact ties: scale 0.5 makes every odd sum a tie, rounded to even.
cases("u8_saturating", ints(np.uint8, 1, 8, 5, 5), 1.0, 0, ints(np.int8, 4, 8, 3, 3), 1.0, np.array(0, np.int8), 40.0,
      np.array(128, np.uint8))
cases("ties_to_even", ints(np.uint8, 1, 3, 4, 4, hi=3), 1.0, 1, ints(np.int8, 2, 3, 1, 1, lo=-2, hi=2), 0.5,
      np.array(0, np.int8), 1.0, np.array(7, np.uint8))
# Weights whose difference from their zero point leaves int8 (uint8 weights, zero point 0):
# the reference path, also with constant weights.
cases("u8_weights_beyond_int8", ints(np.uint8, 1, 3, 5, 5), 0.1, 0, ints(np.uint8, 2, 3, 3, 3, lo=128), 0.01,
      np.array(0, np.uint8), 2.0, np.array(0, np.uint8))
# Batch and shape changes between runs are covered by the session tests; here one bad case:
w.bad("bias_wrong_length", "QLinearConv",
      [("x", ints(np.uint8, 1, 2, 3, 3)), ("xs", np.array(1, f32)), ("xz", np.array(0, np.uint8)),
       ("w", ints(np.int8, 4, 2, 1, 1)), ("ws", np.array(1, f32)), ("wz", np.array(0, np.int8)),
       ("ys", np.array(1, f32)), ("yz", np.array(0, np.uint8)), ("b", np.zeros(3, np.int32))],
      [("y", TP.UINT8)], "B must be int32 of shape [4]", opset=13)
w.done()
