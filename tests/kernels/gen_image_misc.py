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


# ---- CenterCropPad ---------------------------------------------------------------------------
def center_crop_pad_ref(x, lengths, axes):
    out_shape = list(x.shape)
    src, dst = [slice(None)] * x.ndim, [slice(None)] * x.ndim
    for a, t in zip(axes, lengths):
        a %= x.ndim
        dim = x.shape[a]
        out_shape[a] = t
        if t < dim:
            s = (dim - t) // 2
            src[a] = slice(s, s + t)
        else:
            s = (t - dim) // 2
            dst[a] = slice(s, s + dim)
    out = np.zeros(out_shape, x.dtype) if x.dtype != object else np.full(out_shape, "", object)
    out[tuple(dst)] = x[tuple(src)]
    return out


x = rng.integers(-50, 50, (5, 6, 3)).astype(np.float32)
for name, lengths, axes in [("crop_all", [3, 4, 2], None), ("pad_all", [8, 9, 4], None), ("mixed", [2, 9, 3], None),
                            ("odd_diffs", [4, 3, 6], None), ("axes_hw", [3, 8], [0, 1]), ("neg_axes", [4, 5], [-3, -1]),
                            ("one_axis_same", [6], [1]), ("to_zero", [0, 6, 3], None)]:
    attrs = {} if axes is None else {"axes": axes}
    w.case(f"centercroppad_{name}", "CenterCropPad", [("x", x), ("shape", np.array(lengths, np.int64))],
           [("y", center_crop_pad_ref(x, lengths, axes or range(3)))], opset=18, **attrs)
xi = rng.integers(0, 100, (7, 2)).astype(np.uint8)
w.case("centercroppad_uint8_int32_shape", "CenterCropPad", [("x", xi), ("shape", np.array([4, 5], np.int32))],
       [("y", center_crop_pad_ref(xi, [4, 5], [0, 1]))], opset=18)
xs = np.array([["a", "bb", "ccc"], ["d", "ee", "fff"]], object)
w.case("centercroppad_string", "CenterCropPad", [("x", xs), ("shape", np.array([4, 2], np.int64))],
       [("y", center_crop_pad_ref(xs, [4, 2], [0, 1]))], opset=18)
w.bad("centercroppad_length_count", "CenterCropPad", [("x", x), ("shape", np.array([3, 3], np.int64))], [("y", TP.FLOAT)],
      "2 lengths for 3 axes", opset=18)
w.bad("centercroppad_negative", "CenterCropPad", [("x", x), ("shape", np.array([3, -1, 2], np.int64))], [("y", TP.FLOAT)],
      "negative length", opset=18)
w.bad("centercroppad_axis_range", "CenterCropPad", [("x", x), ("shape", np.array([3], np.int64))], [("y", TP.FLOAT)],
      "out of range", opset=18, axes=[3])


# ---- Col2Im ----------------------------------------------------------------------------------
def col2im_ref(x, image, block, dil, pads, strides):
    n = len(image)
    N, CK, L = x.shape
    K = int(np.prod(block))
    C = CK // K
    grid = [(image[d] + pads[d] + pads[d + n] - (dil[d] * (block[d] - 1) + 1)) // strides[d] + 1 for d in range(n)]
    assert int(np.prod(grid)) == L
    padded = np.zeros((N, C) + tuple(image[d] + pads[d] + pads[d + n] for d in range(n)), np.float64)
    cols = x.astype(np.float64).reshape((N, C) + tuple(block) + tuple(grid))
    for k in np.ndindex(*block):
        for b in np.ndindex(*grid):
            pos = tuple(b[d] * strides[d] + k[d] * dil[d] for d in range(n))
            padded[(slice(None), slice(None)) + pos] += cols[(slice(None), slice(None)) + k + b]
    crop = tuple(slice(pads[d], pads[d] + image[d]) for d in range(n))
    return padded[(slice(None), slice(None)) + crop].astype(x.dtype)


for name, image, block, dil, pads, strides in [
        ("basic", [5, 5], [1, 5], [1, 1], [0, 0, 0, 0], [1, 1]),
        ("overlap", [4, 5], [2, 3], [1, 1], [0, 0, 0, 0], [1, 1]),
        ("strides", [5, 7], [3, 3], [1, 1], [0, 0, 0, 0], [2, 2]),
        ("pads", [4, 4], [3, 3], [1, 1], [1, 0, 2, 1], [1, 1]),
        ("dilations", [6, 6], [2, 2], [2, 3], [0, 0, 0, 0], [1, 1]),
        ("all", [7, 6], [2, 3], [2, 1], [1, 2, 0, 1], [2, 3]),
        ("1d", [9], [3], [2], [1, 1], [2]),
        ("3d", [3, 4, 3], [2, 2, 2], [1, 1, 1], [0, 1, 0, 0, 0, 1], [1, 1, 1])]:
    n = len(image)
    grid = [(image[d] + pads[d] + pads[d + n] - (dil[d] * (block[d] - 1) + 1)) // strides[d] + 1 for d in range(n)]
    x = rng.uniform(-1, 1, (2, 2 * int(np.prod(block)), int(np.prod(grid)))).astype(np.float32)
    w.case(f"col2im_{name}", "Col2Im", [("x", x), ("image_shape", np.array(image, np.int64)), ("block_shape", np.array(block, np.int64))],
           [("y", col2im_ref(x, image, block, dil, pads, strides))], opset=18, dilations=dil, pads=pads, strides=strides)
xi = rng.integers(-9, 9, (1, 4, 4)).astype(np.int32)
w.case("col2im_int32", "Col2Im", [("x", xi), ("image_shape", np.array([3, 3], np.int64)), ("block_shape", np.array([2, 2], np.int64))],
       [("y", col2im_ref(xi, [3, 3], [2, 2], [1, 1], [0, 0, 0, 0], [1, 1]))], opset=18)
x = rng.uniform(-1, 1, (1, 4, 4)).astype(np.float32)
w.bad("col2im_wrong_block_count", "Col2Im", [("x", x), ("image_shape", np.array([4, 4], np.int64)), ("block_shape", np.array([2, 2], np.int64))],
      [("y", TP.FLOAT)], "number of blocks", opset=18)
w.bad("col2im_channels_not_multiple", "Col2Im", [("x", x), ("image_shape", np.array([3, 3], np.int64)), ("block_shape", np.array([3, 1], np.int64))],
      [("y", TP.FLOAT)], "not a multiple", opset=18)
w.bad("col2im_block_too_large", "Col2Im", [("x", x), ("image_shape", np.array([1, 1], np.int64)), ("block_shape", np.array([2, 2], np.int64))],
      [("y", TP.FLOAT)], "larger than the padded image", opset=18)


# ---- AffineGrid ------------------------------------------------------------------------------
def affine_grid_ref(theta, size, align):
    spatial = size[2:]
    axes = []
    for L in spatial:
        i = np.arange(L, dtype=np.float64)
        axes.append((-1 + 2 * i / (L - 1) if L > 1 else np.full(L, -1.0)) if align else -1 + (2 * i + 1) / L)
    mesh = np.meshgrid(*axes, indexing="ij")  # per spatial dim, indexed (D,) H, W
    coords = np.stack([m for m in mesh[::-1]] + [np.ones_like(mesh[0])], axis=-1)  # x, y, (z), 1
    return np.einsum("nrc,...c->n...r", theta.astype(np.float64), coords).astype(theta.dtype)


for dims in (2, 3):
    for align in (0, 1):
        theta = rng.uniform(-1, 1, (2, dims, dims + 1)).astype(np.float32)
        size = [2, 3, 4, 5] if dims == 2 else [2, 3, 3, 4, 2]
        w.case(f"affinegrid_{dims}d_align{align}", "AffineGrid", [("theta", theta), ("size", np.array(size, np.int64))],
               [("grid", affine_grid_ref(theta, size, align))], opset=20, align_corners=align)
theta = rng.uniform(-1, 1, (1, 2, 3))
w.case("affinegrid_f64_size1", "AffineGrid", [("theta", theta), ("size", np.array([1, 1, 1, 3], np.int64))],
       [("grid", affine_grid_ref(theta, [1, 1, 1, 3], 1))], opset=20, align_corners=1)
w.bad("affinegrid_theta_shape", "AffineGrid", [("theta", np.zeros((2, 3, 4), np.float32)), ("size", np.array([2, 1, 4, 4], np.int64))],
      [("grid", TP.FLOAT)], "theta must have shape [2, 2, 3]", opset=20)
w.bad("affinegrid_size_length", "AffineGrid", [("theta", np.zeros((2, 2, 3), np.float32)), ("size", np.array([2, 1, 4], np.int64))],
      [("grid", TP.FLOAT)], "'size' must be", opset=20)


# ---- DeformConv ------------------------------------------------------------------------------
def sample(plane, p):
    """Multilinear interpolation of an n-d plane at point p; outside neighbours count as zero."""
    n = plane.ndim
    base = np.floor(p).astype(np.int64)
    frac = p - base
    v = 0.0
    for corner in np.ndindex(*([2] * n)):
        idx = base + np.array(corner)
        if np.all(idx >= 0) and np.all(idx < plane.shape):
            v += np.prod(np.where(np.array(corner) == 1, frac, 1 - frac)) * plane[tuple(idx)]
    return v


def deform_conv_ref(X, W, off, B, mask, group, og, dil, pads, strides):
    n = X.ndim - 2
    N, C = X.shape[:2]
    oC = W.shape[0]
    k = W.shape[2:]
    K = int(np.prod(k))
    osz = off.shape[2:]
    off = off.astype(np.float64).reshape((N, og) + tuple(k) + (n,) + tuple(osz))
    mask = np.ones((N, og * K) + tuple(osz)) if mask is None else mask.astype(np.float64)
    mask = mask.reshape((N, og) + tuple(k) + tuple(osz))
    cpg, opg, cpo = C // group, oC // group, C // og
    out = np.zeros((N, oC) + tuple(osz))
    for b in range(N):
        for c in range(C):
            g = c // cpo
            for kk in np.ndindex(*k):
                for o in np.ndindex(*osz):
                    p = np.array([o[d] * strides[d] - pads[d] + kk[d] * dil[d] for d in range(n)], np.float64)
                    p += off[(b, g) + kk + (slice(None),) + o]
                    v = sample(X[b, c].astype(np.float64), p) * mask[(b, g) + kk + o]
                    grp = c // cpg
                    for oc in range(grp * opg, (grp + 1) * opg):
                        out[(b, oc) + o] += W[(oc, c % cpg) + kk] * v
    if B is not None:
        out += B.astype(np.float64).reshape((1, oC) + (1,) * n)
    return out.astype(X.dtype)


def deform_case(name, xshape, wshape, group=1, og=1, dil=None, pads=None, strides=None, bias=True, use_mask=True, dt=np.float32):
    n = len(xshape) - 2
    dil, strides = dil or [1] * n, strides or [1] * n
    pads = pads or [0] * (2 * n)
    k = wshape[2:]
    osz = [(xshape[2 + d] + pads[d] + pads[d + n] - (dil[d] * (k[d] - 1) + 1)) // strides[d] + 1 for d in range(n)]
    X = rng.uniform(-1, 1, xshape).astype(dt)
    W = rng.uniform(-1, 1, wshape).astype(dt)
    K = int(np.prod(k))
    off = rng.uniform(-1.5, 1.5, [xshape[0], og * K * n] + osz).astype(dt)
    B = rng.uniform(-1, 1, wshape[0]).astype(dt) if bias else None
    M = rng.uniform(0, 1, [xshape[0], og * K] + osz).astype(dt) if use_mask else None
    attrs = dict(group=group, offset_group=og, dilations=dil, pads=pads, strides=strides, kernel_shape=list(k))
    inputs = [("x", X), ("w", W), ("offset", off), ("b", B), ("mask", M)]
    w.case(f"deformconv_{name}", "DeformConv", inputs, [("y", deform_conv_ref(X, W, off, B, M, group, og, dil, pads, strides))],
           opset=22, **attrs)


deform_case("basic", [1, 2, 4, 4], [3, 2, 2, 2], bias=False, use_mask=False)
deform_case("mask_bias", [2, 2, 5, 4], [2, 2, 3, 2])
deform_case("groups", [1, 4, 4, 5], [4, 2, 2, 2], group=2, og=2)
deform_case("offset_groups", [1, 4, 4, 4], [2, 4, 2, 2], og=4)
deform_case("pads_strides_dil", [1, 2, 6, 7], [2, 2, 2, 3], dil=[2, 1], pads=[1, 0, 2, 1], strides=[2, 2])
deform_case("1d", [2, 3, 8], [2, 3, 3], pads=[1, 1])
deform_case("3d", [1, 2, 3, 4, 3], [2, 2, 2, 2, 2])
deform_case("f64", [1, 2, 4, 4], [2, 2, 2, 2], dt=np.float64)
X = np.zeros((1, 2, 4, 4), np.float32)
w.bad("deformconv_offset_shape", "DeformConv", [("x", X), ("w", np.zeros((2, 2, 2, 2), np.float32)), ("offset", np.zeros((1, 8, 2, 2), np.float32))],
      [("y", TP.FLOAT)], "offset must have shape [1,8,3,3]", opset=22)
w.bad("deformconv_group_mismatch", "DeformConv", [("x", X), ("w", np.zeros((2, 1, 2, 2), np.float32)), ("offset", np.zeros((1, 8, 3, 3), np.float32))],
      [("y", TP.FLOAT)], "channels do not fit group", opset=22)

w.done()
