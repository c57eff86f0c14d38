#!/usr/bin/python3
"""Kernel cases for the fused convolution ops the graph optimiser emits: com.microsoft
FusedConv (NCHW), NhwcFusedConv and NhwcMaxPool (channels-last). References are direct numpy
loops in float64 following the ops' published definitions (ONNX Conv / MaxPool, ONNX Runtime's
contrib-op docs): Y = activation(conv(X, W) + B + Z).

Usage: gen_fused_conv.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP

from kcase import Writer

w = Writer()
rng = np.random.default_rng(4242)
rnd = lambda *s: rng.standard_normal(s).astype(np.float32)
MS = [("com.microsoft", 1)]


def conv_ref(x, wt, b=None, strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1), group=1):
    """Direct 2-D convolution, NCHW, float64."""
    x = x.astype(np.float64)
    wt = wt.astype(np.float64)
    n, c, h, wd = x.shape
    m, cg, kh, kw = wt.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (h + pads[0] + pads[2] - (dilations[0] * (kh - 1) + 1)) // strides[0] + 1
    ow = (wd + pads[1] + pads[3] - (dilations[1] * (kw - 1) + 1)) // strides[1] + 1
    y = np.zeros((n, m, oh, ow))
    mg = m // group
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * dilations[0]: i * dilations[0] + strides[0] * (oh - 1) + 1: strides[0],
                           j * dilations[1]: j * dilations[1] + strides[1] * (ow - 1) + 1: strides[1]]
                y[:, g * mg:(g + 1) * mg] += np.einsum("nchw,mc->nmhw", patch, wt[g * mg:(g + 1) * mg, :, i, j])
    if b is not None:
        y += b.astype(np.float64).reshape(1, -1, 1, 1)
    return y


ACTIVATIONS = {
    "Relu": ([], lambda v: np.maximum(v, 0)),
    "Clip": ([0.0, 6.0], lambda v: np.clip(v, 0.0, 6.0)),
    "LeakyRelu": ([0.1], lambda v: np.where(v > 0, v, 0.1 * v)),
    "Sigmoid": ([], lambda v: 1 / (1 + np.exp(-v))),
    "Tanh": ([], np.tanh),
    "HardSigmoid": ([0.2, 0.5], lambda v: np.clip(0.2 * v + 0.5, 0, 1)),
}

nhwc = lambda a: np.ascontiguousarray(a.transpose(0, 2, 3, 1))

# One case per activation, plain 3x3 with padding and bias; then residual Z, strides, groups.
for act, (params, fn) in ACTIVATIONS.items():
    x, wt, b = rnd(1, 4, 7, 6), rnd(5, 4, 3, 3), rnd(5)
    y = fn(conv_ref(x, wt, b, pads=(1, 1, 1, 1)))
    attrs = dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], activation=act)
    if params:
        attrs["activation_params"] = params
    w.case(f"fused_conv_{act.lower()}", "FusedConv", [("x", x), ("w", wt), ("b", b)], [("y", y.astype(np.float32))],
           domain="com.microsoft", extra_opsets=MS, **attrs)
    w.case(f"nhwc_fused_conv_{act.lower()}", "NhwcFusedConv", [("x", nhwc(x)), ("w", wt), ("b", b)],
           [("y", nhwc(y).astype(np.float32))], domain="com.microsoft", extra_opsets=MS, **attrs)

for name, kw in [("residual", dict()), ("stride2", dict(strides=(2, 2), pads=(1, 0, 1, 0))),
                 ("dilated", dict(dilations=(2, 1), pads=(2, 1, 2, 1))), ("grouped", dict(group=2, pads=(1, 1, 1, 1))),
                 ("depthwise", dict(group=8, pads=(1, 1, 1, 1)))]:
    group = kw.get("group", 1)
    c = 8
    x, wt, b = rnd(2, c, 9, 8), rnd(8, c // group, 3, 3), rnd(8)
    conv = conv_ref(x, wt, b, **kw)
    z = rnd(*conv.shape)
    y = np.maximum(conv + z, 0)
    attrs = dict(kernel_shape=[3, 3], activation="Relu", group=group, strides=list(kw.get("strides", (1, 1))),
                 pads=list(kw.get("pads", (0, 0, 0, 0))), dilations=list(kw.get("dilations", (1, 1))))
    w.case(f"fused_conv_{name}", "FusedConv", [("x", x), ("w", wt), ("b", b), ("z", z)], [("y", y.astype(np.float32))],
           domain="com.microsoft", extra_opsets=MS, **attrs)
    w.case(f"nhwc_fused_conv_{name}", "NhwcFusedConv", [("x", nhwc(x)), ("w", wt), ("b", b), ("z", nhwc(z.astype(np.float32)))],
           [("y", nhwc(y).astype(np.float32))], domain="com.microsoft", extra_opsets=MS, **attrs)

# No bias, no activation, 1x1.
x, wt = rnd(1, 16, 5, 5), rnd(32, 16, 1, 1)
w.case("fused_conv_1x1_plain", "FusedConv", [("x", x), ("w", wt)], [("y", conv_ref(x, wt).astype(np.float32))],
       domain="com.microsoft", extra_opsets=MS, kernel_shape=[1, 1])
w.case("nhwc_fused_conv_1x1_plain", "NhwcFusedConv", [("x", nhwc(x)), ("w", wt)],
       [("y", nhwc(conv_ref(x, wt)).astype(np.float32))], domain="com.microsoft", extra_opsets=MS, kernel_shape=[1, 1])


def max_pool_ref(x, k, s, pads):
    n, c, h, wd = x.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])), constant_values=-np.inf)
    oh = (h + pads[0] + pads[2] - k[0]) // s[0] + 1
    ow = (wd + pads[1] + pads[3] - k[1]) // s[1] + 1
    y = np.full((n, c, oh, ow), -np.inf)
    for i in range(k[0]):
        for j in range(k[1]):
            y = np.maximum(y, xp[:, :, i: i + s[0] * (oh - 1) + 1: s[0], j: j + s[1] * (ow - 1) + 1: s[1]])
    return y


for name, k, s, p in [("3x3s2p1", (3, 3), (2, 2), (1, 1, 1, 1)), ("2x2s2", (2, 2), (2, 2), (0, 0, 0, 0)),
                      ("3x2s1", (3, 2), (1, 1), (0, 1, 1, 0))]:
    x = rnd(2, 5, 9, 11)
    y = max_pool_ref(x, k, s, p)
    w.case(f"nhwc_max_pool_{name}", "NhwcMaxPool", [("x", nhwc(x))], [("y", nhwc(y).astype(np.float32))],
           domain="com.microsoft", extra_opsets=MS, kernel_shape=list(k), strides=list(s), pads=list(p))
    # The same geometry through ai.onnx MaxPool (float32 takes the oneDNN path).
    w.case(f"max_pool_fast_{name}", "MaxPool", [("x", x)], [("y", y.astype(np.float32))], opset=12,
           kernel_shape=list(k), strides=list(s), pads=list(p))

x, wt = rnd(1, 4, 5, 5), rnd(4, 4, 3, 3)
w.bad("fused_conv_unknown_activation", "FusedConv", [("x", x), ("w", wt)], [("y", TP.FLOAT)], "activation",
      domain="com.microsoft", extra_opsets=MS, kernel_shape=[3, 3], activation="Swish")
w.bad("fused_conv_clip_params", "FusedConv", [("x", x), ("w", wt)], [("y", TP.FLOAT)], "activation_params",
      domain="com.microsoft", extra_opsets=MS, kernel_shape=[3, 3], activation="Clip", activation_params=[0.0])
w.bad("fused_conv_z_shape", "FusedConv", [("x", x), ("w", wt), ("b", rnd(4)), ("z", rnd(1, 4, 2, 2))], [("y", TP.FLOAT)],
      "Z", domain="com.microsoft", extra_opsets=MS, kernel_shape=[3, 3])
w.bad("nhwc_fused_conv_rank3", "NhwcFusedConv", [("x", rnd(1, 5, 4)), ("w", rnd(4, 4, 3))], [("y", TP.FLOAT)], "rank-4",
      domain="com.microsoft", extra_opsets=MS, kernel_shape=[3])
w.bad("nhwc_max_pool_double", "NhwcMaxPool", [("x", rnd(1, 4, 4, 2).astype(np.float64))], [("y", TP.DOUBLE)], "float32",
      domain="com.microsoft", extra_opsets=MS, kernel_shape=[2, 2])

w.done()
