#!/usr/bin/python3
"""Kernel cases for reductions and ArgMax/ArgMin, Resize/Upsample, GridSample, and the
NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss ops.

Usage: gen_reduce_resize.py OUT_DIR (see kcase.py for the layout)."""
import itertools
import math

import numpy as np
from onnx import TensorProto as TP

from kcase import Writer

w = Writer()
rng = np.random.default_rng(505)
f32 = np.float32
i64 = lambda *v: np.array(v, np.int64)

# ---------------------------------------------------------------- reductions
x = rng.standard_normal((3, 4, 5)).astype(f32)
x4 = rng.standard_normal((2, 3, 4, 5)).astype(f32)
e = np.zeros((2, 0, 3), f32)
w.case("reduce_max18_axes_input", "ReduceMax", [("x", x), ("axes", i64(1))], [("y", x.max(axis=1))], opset=18, keepdims=0)
w.case("reduce_mean18_two_axes", "ReduceMean", [("x", x4), ("axes", i64(0, -2))], [("y", x4.mean(axis=(0, 2)))], opset=18, keepdims=0)
w.case("reduce_mean11_attr_axes", "ReduceMean", [("x", x4)], [("y", x4.mean(axis=(1, 3), keepdims=True))], opset=11, axes=[1, 3])
# Float sums whose last kept dim is contiguous (the vectorised path): a global average pool
# over NHWC, a run longer than 256, kept dims on both sides of the reduced one, rows summed.
gap = rng.standard_normal((2, 5, 7, 40)).astype(f32)
w.case("reduce_mean18_nhwc_global_pool", "ReduceMean", [("x", gap), ("axes", i64(1, 2))],
       [("y", gap.mean(axis=(1, 2), keepdims=True))], opset=18)
wide = rng.standard_normal((1, 3, 3, 600)).astype(f32)
w.case("reduce_mean13_wide_run", "ReduceMean", [("x", wide)], [("y", wide.mean(axis=(1, 2)))], opset=13, axes=[1, 2],
       keepdims=0)
mid = rng.standard_normal((4, 5, 24)).astype(f32)
w.case("reduce_sum13_middle_axis", "ReduceSum", [("x", mid), ("axes", i64(1))], [("y", mid.sum(axis=1, keepdims=True))],
       opset=13)
rows = rng.standard_normal((30, 20, 33)).astype(f32)
w.case("reduce_sum13_rows", "ReduceSum", [("x", rows), ("axes", i64(0))], [("y", rows.sum(axis=0))], opset=13, keepdims=0)
w.case("reduce_l1_13_all", "ReduceL1", [("x", x4)], [("y", np.abs(x4).sum(keepdims=True))], opset=13)
w.case("reduce_l2_11_f64", "ReduceL2", [("x", x4.astype(np.float64))],
       [("y", np.sqrt((x4.astype(np.float64) ** 2).sum(axis=1, keepdims=True)))], opset=11, axes=[1])
w.case("reduce_log_sum_exp18_large", "ReduceLogSumExp", [("x", x * 100), ("axes", i64(2))],
       [("y", (np.log(np.exp(x.astype(np.float64) * 100 - 500).sum(axis=2, keepdims=True)) + 500).astype(f32))], opset=18)
w.case("reduce_prod13_int64", "ReduceProd", [("x", np.arange(1, 13, dtype=np.int64).reshape(3, 4))],
       [("y", np.arange(1, 13, dtype=np.int64).reshape(3, 4).prod(axis=0))], opset=13, axes=[0], keepdims=0)
w.case("reduce_sum13_no_axes", "ReduceSum", [("x", x)], [("y", x.sum(keepdims=True))], opset=13)
w.case("reduce_sum13_noop_empty_axes", "ReduceSum", [("x", x), ("axes", np.zeros(0, np.int64))], [("y", x)], opset=13,
       noop_with_empty_axes=1)
w.case("reduce_sum13_int32", "ReduceSum", [("x", np.array([[100, -28, 7], [-100, -28, 1]], np.int32)), ("axes", i64(1))],
       [("y", np.array([79, -127], np.int32))], opset=13, keepdims=0)
xh = x4.astype(np.float16)
w.case("reduce_sum13_f16", "ReduceSum", [("x", xh), ("axes", i64(3))],
       [("y", xh.astype(f32).sum(axis=3, keepdims=True).astype(np.float16))], opset=13)
w.case("reduce_mean13_int_exact", "ReduceMean", [("x", np.array([[1, 3], [3, 5], [-3, -5]], np.int32))],
       [("y", np.array([2, 4, -4], np.int32))], opset=13, axes=[1], keepdims=0)
b = np.array([[True, False], [True, True]])
w.case("reduce_min20_bool", "ReduceMin", [("x", b), ("axes", i64(1))], [("y", b.min(axis=1, keepdims=True))], opset=20)
w.case("reduce_max20_bool", "ReduceMax", [("x", b)], [("y", b.max(keepdims=True))], opset=20)
# Reducing an empty set gives the identity of the reduction.
for op, val, keep in [("ReduceSum", 0, 1), ("ReduceProd", 1, 1), ("ReduceMax", -np.inf, 0), ("ReduceMin", np.inf, 0),
                      ("ReduceLogSumExp", -np.inf, 1), ("ReduceLogSum", -np.inf, 1), ("ReduceL2", 0, 1), ("ReduceL1", 0, 1)]:
    shape = (2, 1, 3) if keep else (2, 3)
    w.case(f"{op[6:].lower()}18_empty_axis", op, [("x", e), ("axes", i64(1))], [("y", np.full(shape, val, f32))], opset=18, keepdims=keep)
w.case("sum_square18_empty_all", "ReduceSumSquare", [("x", e)], [("y", np.zeros((1, 1, 1), f32))], opset=18)
w.bad("reduce_sum_axis_out_of_range", "ReduceSum", [("x", x), ("axes", i64(3))], [("y", TP.FLOAT)], "out of range", opset=13)
w.bad("reduce_sum_repeated_axis", "ReduceSum", [("x", x), ("axes", i64(1, -2))], [("y", TP.FLOAT)], "repeated", opset=13)
# ArgMax / ArgMin: first index of ties unless select_last_index.
w.case("argmin_select_last", "ArgMin", [("x", np.array([[3, 1, 3, 1]], np.int32))], [("y", np.array([[3]], np.int64))], opset=13,
       axis=1, select_last_index=1)
w.case("argmax_ties_first", "ArgMax", [("x", np.array([[3, 1, 3, 1]], np.float32))], [("y", np.array([0], np.int64))], opset=13,
       axis=1, keepdims=0)
w.case("argmax_axis0_uint8", "ArgMax", [("x", np.array([[1, 9], [5, 2]], np.uint8))], [("y", np.array([1, 0], np.int64))], opset=11,
       keepdims=0)
w.case("argmax_negative_axis_f64", "ArgMax", [("x", x4.astype(np.float64))], [("y", x4.argmax(axis=2)[:, :, None])], opset=13, axis=-2)
w.bad("argmax_empty_axis", "ArgMax", [("x", e)], [("y", TP.INT64)], "empty", opset=13, axis=1)

# ---------------------------------------------------------------- Resize


def cubic_kernel(d, A):
    d = abs(d)
    if d <= 1:
        return (A + 2) * d ** 3 - (A + 3) * d ** 2 + 1
    if d < 2:
        return A * d ** 3 - 5 * A * d ** 2 + 8 * A * d - 4 * A
    return 0.0


def resize_axis_matrix(n_in, n_out, scale, mode, ctm, nearest_mode, A, exclude_outside, antialias, roi):
    """Weights (n_out x n_in) along one axis, and the outputs that fall outside the input
    (tf_crop_and_resize's extrapolation). Taps past the edges take the edge value."""
    M, outside = np.zeros((n_out, n_in)), np.zeros(n_out, bool)
    for i in range(n_out):
        if ctm == "half_pixel":
            xo = (i + 0.5) / scale - 0.5
        elif ctm == "pytorch_half_pixel":
            xo = (i + 0.5) / scale - 0.5 if n_out > 1 else 0.0
        elif ctm == "align_corners":
            xo = i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        elif ctm == "asymmetric":
            xo = i / scale
        elif ctm == "tf_crop_and_resize":
            s, t = roi
            xo = s * (n_in - 1) + i * (t - s) * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.5 * (s + t) * (n_in - 1)
            if xo < 0 or xo > n_in - 1:
                outside[i] = True
                continue
        if mode == "nearest":
            frac = xo - math.floor(xo)
            k = {"floor": math.floor(xo), "ceil": math.ceil(xo),
                 "round_prefer_floor": math.floor(xo) if frac <= 0.5 else math.ceil(xo),
                 "round_prefer_ceil": math.floor(xo) if frac < 0.5 else math.ceil(xo)}[nearest_mode]
            M[i, min(max(k, 0), n_in - 1)] = 1
            continue
        s = min(scale, 1.0) if antialias else 1.0  # antialias stretches the filter by 1/scale
        base, ratio = math.floor(xo), xo - math.floor(xo)
        if mode == "linear":
            start = math.floor(-1 / s) + 1
            offs = range(start, 2 - start)
            coef = [max(0.0, 1 - abs((j - ratio) * s)) for j in offs]
        else:
            start = math.floor(-2 / s) + 1
            offs = range(start, 2 - start)
            coef = [cubic_kernel((j - ratio) * s, A) for j in offs]
        coef = np.array(coef)
        if exclude_outside:
            coef[[not (0 <= base + j < n_in) for j in offs]] = 0
        coef /= coef.sum()
        for j, c in zip(offs, coef):
            M[i, min(max(base + j, 0), n_in - 1)] += c
    return M, outside


def resize_ref(x, out_shape, scales=None, mode="nearest", ctm="half_pixel", nearest_mode="round_prefer_floor", A=-0.75,
               exclude_outside=0, antialias=0, roi=None, extrapolation=0.0):
    """Separable resize in float64. scales: the given scale per axis, or None for out/in."""
    y = x.astype(np.float64)
    mask = np.zeros(out_shape, bool)
    for ax in range(x.ndim):
        scale = scales[ax] if scales is not None else out_shape[ax] / x.shape[ax]
        r = None if roi is None or len(roi) == 0 else (roi[ax], roi[ax + x.ndim])
        M, outside = resize_axis_matrix(x.shape[ax], out_shape[ax], scale, mode, ctm, nearest_mode, A, exclude_outside, antialias, r)
        y = np.moveaxis(np.tensordot(M, np.moveaxis(y, ax, 0), axes=1), 0, ax)
        shape = [1] * x.ndim
        shape[ax] = out_shape[ax]
        mask |= outside.reshape(shape)
    y[mask] = extrapolation
    return y


def resize_case(name, x, out_shape, opset=13, scales=None, sizes=None, axes=None, roi=None, out_dtype=None, **kw):
    """Every scale here gives an integral output size, so reading the spec's `scale` as the given
    scale or as output/input length gives the same coordinates."""
    attrs = {k: v for k, v in kw.items() if k not in ("A", "ctm")}
    if "A" in kw:
        attrs["cubic_coeff_a"] = kw["A"]
    if "ctm" in kw:
        attrs["coordinate_transformation_mode"] = kw["ctm"]
    if axes is not None:
        attrs["axes"] = axes
    full_scales = None
    if scales is not None:
        full_scales = [1.0] * x.ndim
        for k, ax in enumerate(axes if axes is not None else range(x.ndim)):
            full_scales[ax] = float(scales[k])
        assert all(abs(x.shape[a] * full_scales[a] - out_shape[a]) < 1e-6 for a in range(x.ndim))
    ref_kw = {k: v for k, v in kw.items() if k in ("mode", "ctm", "nearest_mode", "A", "exclude_outside", "antialias")}
    if "extrapolation_value" in kw:
        ref_kw["extrapolation"] = kw["extrapolation_value"]
    y = resize_ref(x, out_shape, full_scales, roi=roi, **ref_kw)
    if np.issubdtype(x.dtype, np.integer):
        info = np.iinfo(x.dtype)
        y = np.clip(np.rint(y), info.min, info.max)
    inputs = [("x", x)]
    if opset >= 11:
        inputs.append(("roi", roi))
    inputs.append(("scales", None if scales is None else np.array(scales, f32)))
    if sizes is not None:
        inputs.append(("sizes", np.array(sizes, np.int64)))
    w.case(name, "Resize", inputs, [("y", y.astype(x.dtype))], opset=opset, **attrs)


x2 = rng.standard_normal((8, 12)).astype(f32)
x4 = rng.standard_normal((1, 2, 4, 6)).astype(f32)
resize_case("resize18_antialias_linear", x2, (4, 6), opset=18, scales=[0.5, 0.5], mode="linear", antialias=1)
resize_case("resize18_antialias_cubic", x2, (6, 9), opset=18, scales=[0.75, 0.75], mode="cubic", antialias=1)
resize_case("resize18_antialias_cubic_exclude_outside", x2, (2, 3), opset=18, scales=[0.25, 0.25], mode="cubic", antialias=1,
            exclude_outside=1)
resize_case("resize18_antialias_upsampling", x2, (16, 18), opset=18, scales=[2.0, 1.5], mode="linear", antialias=1)
resize_case("resize18_axes", x4, (1, 2, 2, 3), opset=18, scales=[0.5, 0.5], axes=[2, 3], mode="linear")
# keep_aspect_ratio_policy: not_smaller takes max(3/4, 12/6) = 2, not_larger min(2/4, 12/6) = 0.5.
resize_case("resize18_keep_not_smaller", x4, (1, 2, 8, 12), opset=18, sizes=[3, 12], axes=[2, 3], mode="cubic",
            keep_aspect_ratio_policy="not_smaller")
resize_case("resize18_keep_not_larger", x4, (1, 2, 2, 3), opset=18, sizes=[2, 12], axes=[2, 3], keep_aspect_ratio_policy="not_larger")
resize_case("resize13_align_corners_linear", x4, (1, 2, 7, 5), sizes=[1, 2, 7, 5], mode="linear", ctm="align_corners")
resize_case("resize13_half_pixel_cubic_down", x4, (1, 2, 3, 4), sizes=[1, 2, 3, 4], mode="cubic")
resize_case("resize13_asymmetric_nearest_floor", x4, (1, 2, 6, 15), scales=[1, 1, 1.5, 2.5], ctm="asymmetric", nearest_mode="floor")
resize_case("resize13_nearest_prefer_ceil", x4, (1, 2, 8, 3), scales=[1, 1, 2, 0.5], nearest_mode="round_prefer_ceil")
xu = rng.integers(0, 255, (1, 1, 3, 4)).astype(np.uint8)
resize_case("resize13_uint8_cubic", xu, (1, 1, 6, 8), scales=[1, 1, 2, 2], mode="cubic")
xi8 = rng.integers(-100, 100, (2, 3)).astype(np.int8)
resize_case("resize13_int8_nearest", xi8, (4, 6), scales=[2, 2], ctm="asymmetric")
roi = np.array([0, 0, -0.2, 0.3, 1, 1, 0.8, 1.4], f32)
resize_case("resize13_crop_nearest", x4, (1, 2, 5, 5), sizes=[1, 2, 5, 5], roi=roi, ctm="tf_crop_and_resize", extrapolation_value=7.0)
resize_case("resize13_crop_linear", x4, (1, 2, 5, 5), sizes=[1, 2, 5, 5], roi=roi, mode="linear", ctm="tf_crop_and_resize",
            extrapolation_value=7.0)
x5 = rng.standard_normal((1, 2, 3, 4, 5)).astype(f32)
resize_case("resize13_5d_linear", x5, (1, 2, 5, 3, 7), sizes=[1, 2, 5, 3, 7], mode="linear", ctm="pytorch_half_pixel")
x3 = rng.standard_normal((2, 4, 8)).astype(f32)
resize_case("resize11_3d_nearest_ceil", x3, (2, 6, 6), opset=11, roi=np.zeros(0, f32), scales=[1, 1.5, 0.75], nearest_mode="ceil")
resize_case("resize11_3d_cubic_asymmetric_exclude", x3, (2, 6, 6), opset=11, roi=np.zeros(0, f32), scales=[1, 1.5, 0.75],
            mode="cubic", A=-0.5, exclude_outside=1, ctm="asymmetric")
# Opset 10 Resize and Upsample leave the coordinate mapping unstated; integral nearest
# upsampling repeats each element under any mapping.
rep = np.repeat(np.repeat(x4, 2, axis=2), 3, axis=3)
w.case("resize10_nearest_integral", "Resize", [("x", x4), ("scales", np.array([1, 1, 2, 3], f32))], [("y", rep)], opset=10)
w.case("upsample9_nearest_integral", "Upsample", [("x", x4), ("scales", np.array([1, 1, 2, 3], f32))], [("y", rep)], opset=9)
w.case("upsample7_nearest_integral", "Upsample", [("x", x4)], [("y", rep)], opset=7, scales=[1.0, 1.0, 2.0, 3.0])
w.bad("resize_scales_and_sizes", "Resize", [("x", x4), ("roi", None), ("scales", np.array([1, 1, 2, 2], f32)),
      ("sizes", np.array([1, 2, 8, 12], np.int64))], [("y", TP.FLOAT)], "exactly one of")
w.bad("resize_negative_scale", "Resize", [("x", x4), ("roi", None), ("scales", np.array([1, 1, -2, 2], f32))], [("y", TP.FLOAT)],
      "must be positive")
w.bad("resize_scales_length", "Resize", [("x", x4), ("roi", None), ("scales", np.array([1, 2, 2], f32))], [("y", TP.FLOAT)],
      "one entry per")

# ---------------------------------------------------------------- GridSample


def unnormalize(g, size, align):
    return (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2


def reflect(v, size, align):
    lo2, hi2 = (0, 2 * (size - 1)) if align else (-1, 2 * size - 1)
    if lo2 == hi2:
        return 0.0
    lo, span = lo2 / 2, (hi2 - lo2) / 2
    v = abs(v - lo)
    extra, flips = math.fmod(v, span), math.floor(v / span)
    return extra + lo if flips % 2 == 0 else span - extra + lo


def pad_coord(v, size, padding, align):
    if padding == "border":
        return min(max(v, 0), size - 1)
    if padding == "reflection":
        return min(max(reflect(v, size, align), 0), size - 1)
    return v


def taps(g, size, mode, padding, align):
    """(index, weight) pairs along one axis; zeros padding drops taps outside the input."""
    c = unnormalize(g, size, align)
    if mode == "nearest":
        c = pad_coord(c, size, padding, align)
        i = int(np.rint(c))
        return [(i, 1.0)] if 0 <= i <= size - 1 else []
    if mode == "linear":
        c = pad_coord(c, size, padding, align)
        i0 = math.floor(c)
        t = c - i0
        return [(i, wt) for i, wt in [(i0, 1 - t), (i0 + 1, t)] if 0 <= i <= size - 1]
    i0 = math.floor(c)
    t = c - i0
    out = []
    for j, wt in enumerate([cubic_kernel(t + 1, -0.75), cubic_kernel(t, -0.75), cubic_kernel(1 - t, -0.75), cubic_kernel(2 - t, -0.75)]):
        i = pad_coord(i0 - 1 + j, size, padding, align)
        if 0 <= i <= size - 1:
            out.append((int(i), wt))
    return out


def grid_sample(X, G, mode, padding, align):
    N, r = X.shape[0], X.ndim - 2
    Y = np.zeros(X.shape[:2] + G.shape[1:-1])
    for n in range(N):
        for p in itertools.product(*[range(s) for s in G.shape[1:-1]]):
            loc = G[(n,) + p]  # the grid lists (x, y[, z]): innermost spatial axis first
            per_axis = [taps(float(loc[r - 1 - k]), X.shape[2 + k], mode, padding, align) for k in range(r)]
            for combo in itertools.product(*per_axis):
                Y[(n, slice(None)) + p] += np.prod([t[1] for t in combo]) * X[(n, slice(None)) + tuple(t[0] for t in combo)]
    return Y.astype(X.dtype)


for mode16, mode in [("bilinear", "linear"), ("nearest", "nearest"), ("bicubic", "cubic")]:
    for padding in ["zeros", "border", "reflection"]:
        for align in [0, 1]:
            X = rng.standard_normal((2, 3, 4, 5)).astype(f32)
            G = rng.uniform(-1.7, 1.7, (2, 3, 6, 2)).astype(f32)
            w.case(f"grid_sample16_{mode16}_{padding}_align{align}", "GridSample", [("x", X), ("grid", G)],
                   [("y", grid_sample(X, G, mode, padding, align))], opset=16, mode=mode16, padding_mode=padding, align_corners=align)
    X = rng.standard_normal((1, 2, 3, 4, 5)).astype(f32)
    G = rng.uniform(-1.3, 1.3, (1, 2, 3, 4, 3)).astype(f32)
    w.case(f"grid_sample20_3d_{mode}", "GridSample", [("x", X), ("grid", G)], [("y", grid_sample(X, G, mode, "reflection", 0))],
           opset=20, mode=mode, padding_mode="reflection")
X = rng.standard_normal((1, 2, 7))
G = rng.uniform(-1.3, 1.3, (1, 5, 1))
w.case("grid_sample20_1d_f64", "GridSample", [("x", X), ("grid", G)], [("y", grid_sample(X, G, "linear", "border", 1))],
       opset=20, padding_mode="border", align_corners=1)

# ---------------------------------------------------------------- losses


def nll(logp, t, weight=None, reduction="mean", ignore_index=None):
    """loss[n, d...] = -logp[n, t, d...] * weight[t]; 'mean' divides by the summed weights of
    the targets not ignored."""
    C = logp.shape[1]
    wt = np.ones(C) if weight is None else weight.astype(np.float64)
    keep = np.ones(t.shape, bool) if ignore_index is None else t != ignore_index
    tc = np.where(keep, t, 0)
    picked = np.take_along_axis(logp.astype(np.float64), tc[:, None], axis=1)[:, 0]
    wts = wt[tc] * keep
    loss = -picked * wts
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / wts.sum()


def log_softmax(x):
    x = x.astype(np.float64)
    m = x.max(axis=1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))


x = rng.standard_normal((3, 5, 2))
t = rng.integers(0, 5, (3, 2)).astype(np.int32)
t[0, 0] = -1
wt = rng.uniform(0.1, 1, 5)
w.case("nll_f64_int32_ignore_index", "NegativeLogLikelihoodLoss", [("x", x), ("t", t), ("w", wt)],
       [("y", np.array(nll(x, t, wt, "mean", -1)))], opset=13, ignore_index=-1)
w.case("nll_none", "NegativeLogLikelihoodLoss", [("x", x.astype(f32)), ("t", np.abs(t).astype(np.int64))],
       [("y", nll(x.astype(f32), np.abs(t), None, "none").astype(f32))], opset=13, reduction="none")
lp = log_softmax(x)
w.case("softmax_ce_f64_sum_log_prob", "SoftmaxCrossEntropyLoss", [("x", x), ("t", t), ("w", wt)],
       [("y", np.array(nll(lp, t, wt, "sum", -1))), ("lp", lp)], opset=13, ignore_index=-1, reduction="sum")
xh = x.astype(np.float16)
w.case("softmax_ce_f16_mean", "SoftmaxCrossEntropyLoss", [("x", xh), ("t", np.abs(t).astype(np.int64))],
       [("y", np.array(nll(log_softmax(xh), np.abs(t)), np.float16))], opset=12)
x2 = rng.standard_normal((4, 3)).astype(f32)
t2 = np.array([0, 2, 1, 2], np.int64)
w.case("softmax_ce_2d_mean_weighted", "SoftmaxCrossEntropyLoss", [("x", x2), ("t", t2), ("w", np.array([0.5, 1, 2], f32))],
       [("y", np.array(nll(log_softmax(x2), t2, np.array([0.5, 1, 2])), f32))], opset=13)
w.bad("nll_target_out_of_range", "NegativeLogLikelihoodLoss", [("x", x), ("t", t)], [("y", TP.DOUBLE)], "target", opset=13)
w.done()
