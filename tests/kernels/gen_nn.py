#!/usr/bin/python3
"""Kernel cases for neural-network ops: Conv, ConvTranspose, pooling, MatMul, Gemm, Einsum,
softmax family, normalizations, quantized ops.

Usage: gen_nn.py OUT_DIR (see kcase.py for the layout)."""
import itertools

import numpy as np
from onnx import TensorProto as TP
from onnx import helper

from kcase import Writer, model, to_proto, value_info

w = Writer()
rng = np.random.default_rng(303)
rnd = lambda *s: rng.standard_normal(s).astype(np.float32)


def conv_ref(x, wt, b, strides, pads, dil, group):
    """Direct N-d convolution in float64; pads = [begin..., end...]."""
    r = x.ndim - 2
    N, C = x.shape[:2]
    M, k = wt.shape[0], wt.shape[2:]
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(pads[i], pads[i + r]) for i in range(r)])
    ek = [(k[i] - 1) * dil[i] + 1 for i in range(r)]
    out = [(xp.shape[2 + i] - ek[i]) // strides[i] + 1 for i in range(r)]
    y = np.zeros((N, M) + tuple(out))
    cg, mg = C // group, M // group
    for o in itertools.product(*[range(n) for n in out]):
        win_sl = tuple(slice(o[i] * strides[i], o[i] * strides[i] + ek[i], dil[i]) for i in range(r))
        for g in range(group):
            win = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + win_sl]
            y[(slice(None), slice(g * mg, (g + 1) * mg)) + o] = np.tensordot(
                win, wt[g * mg:(g + 1) * mg].astype(np.float64), axes=(list(range(1, r + 2)), list(range(1, r + 2))))
    if b is not None:
        y += b.reshape((1, M) + (1,) * r)
    return y


def conv_transpose_ref(x, wt, b, strides, pads, dil, group, out_pad):
    """Scatter form of ConvTranspose: the full output, then `pads` cropped from it."""
    r = x.ndim - 2
    N, C = x.shape[:2]
    mg, k = wt.shape[1], wt.shape[2:]
    M, cg = mg * group, C // group
    full = [strides[i] * (x.shape[2 + i] - 1) + out_pad[i] + (k[i] - 1) * dil[i] + 1 for i in range(r)]
    y = np.zeros((N, M) + tuple(full))
    for i in itertools.product(*[range(n) for n in x.shape[2:]]):
        for kk in itertools.product(*[range(n) for n in k]):
            o = tuple(i[d] * strides[d] + kk[d] * dil[d] for d in range(r))
            for g in range(group):
                y[(slice(None), slice(g * mg, (g + 1) * mg)) + o] += (
                    x[(slice(None), slice(g * cg, (g + 1) * cg)) + i].astype(np.float64)
                    @ wt[(slice(g * cg, (g + 1) * cg), slice(None)) + kk].astype(np.float64))
    y = y[(slice(None), slice(None)) + tuple(slice(pads[d], full[d] - pads[d + r]) for d in range(r))]
    if b is not None:
        y += b.reshape((1, M) + (1,) * r)
    return y


def pool_ref(x, kind, k, strides, pads, dil, ceil, count_include_pad, storage_order=0):
    """Average / Lp (p=2) / max pooling with MaxPool's flat indices. In ceil mode the output size
    is ceil(...) + 1; the cases avoid a last window that would start inside the end padding
    (where ONNX versions disagree), which the assertion checks."""
    r = x.ndim - 2
    ek = [(k[i] - 1) * dil[i] + 1 for i in range(r)]
    out = []
    for i in range(r):
        span = x.shape[2 + i] + pads[i] + pads[i + r] - ek[i]
        o = (-(-span // strides[i]) if ceil else span // strides[i]) + 1
        assert (o - 1) * strides[i] < x.shape[2 + i] + pads[i], "window starts in the end padding"
        out.append(o)
    y = np.zeros(x.shape[:2] + tuple(out))
    ind = np.zeros(x.shape[:2] + tuple(out), np.int64)
    spatial = x.shape[2:]
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o in itertools.product(*[range(v) for v in out]):
            vals, idxs, in_padded = [], [], 0
            for kk in itertools.product(*[range(v) for v in k]):
                pos = [o[d] * strides[d] - pads[d] + kk[d] * dil[d] for d in range(r)]
                if all(-pads[d] <= pos[d] < spatial[d] + pads[d + r] for d in range(r)):
                    in_padded += 1
                if all(0 <= pos[d] < spatial[d] for d in range(r)):
                    vals.append(float(x[(n, c) + tuple(pos)]))
                    idxs.append(pos)
            if kind == "avg":
                y[(n, c) + o] = sum(vals) / (in_padded if count_include_pad else len(vals))
            elif kind == "lp":
                y[(n, c) + o] = np.sqrt(sum(v * v for v in vals))
            else:
                j = int(np.argmax(vals))
                y[(n, c) + o] = vals[j]
                p = idxs[j]
                flat = (np.ravel_multi_index(tuple(p), spatial) if storage_order == 0
                        else np.ravel_multi_index(tuple(p[::-1]), spatial[::-1]))
                ind[(n, c) + o] = (n * x.shape[1] + c) * int(np.prod(spatial)) + flat
    return y, ind


# ---- Conv: strides, asymmetric pads, dilations, groups, 1-d/2-d/3-d, depthwise, 1x1.
CONVS = [  # x shape, w shape, strides, pads, dilations, group
    ((2, 4, 9, 8), (6, 2, 3, 2), [2, 1], [1, 0, 2, 1], [1, 2], 2),
    ((1, 3, 7), (4, 3, 3), [3], [2, 1], [2], 1),
    ((2, 2, 5, 6, 4), (4, 1, 2, 3, 2), [1, 2, 1], [0, 1, 1, 1, 0, 1], [2, 1, 1], 2),
    ((1, 8, 10, 10), (8, 1, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 8),
    ((3, 5, 6, 6), (7, 5, 1, 1), [1, 1], [0, 0, 0, 0], [1, 1], 1),
    ((1, 4, 6, 6), (6, 4, 1, 1), [2, 2], [0, 0, 0, 0], [1, 1], 1),
    ((2, 3, 40, 40), (16, 3, 5, 5), [1, 1], [2, 2, 2, 2], [1, 1], 1),
]
for i, (xs, ws, st, pd, dl, g) in enumerate(CONVS):
    x, wt, b = rnd(*xs), rnd(*ws), rnd(ws[0])
    y = conv_ref(x, wt, b, st, pd, dl, g)
    attrs = dict(strides=st, pads=pd, dilations=dl, group=g)
    w.case(f"conv_{i}", "Conv", [("x", x), ("w", wt), ("b", b)], [("y", y.astype(np.float32))], **attrs)
    if i in (0, 2):
        w.case(f"conv_{i}_f64", "Conv", [("x", x.astype(np.float64)), ("w", wt.astype(np.float64)), ("b", b.astype(np.float64))],
               [("y", y)], **attrs)
        h = [a.astype(np.float16) for a in (x, wt, b)]
        w.case(f"conv_{i}_f16", "Conv", [("x", h[0]), ("w", h[1]), ("b", h[2])],
               [("y", conv_ref(*h, st, pd, dl, g).astype(np.float16))], **attrs)
x, wt = rnd(1, 2, 7, 6), rnd(3, 2, 3, 4)
for ap in ["SAME_UPPER", "SAME_LOWER", "VALID"]:
    st, pads = [2, 3], [0, 0, 0, 0]
    if ap != "VALID":
        for d in range(2):
            o = -(-x.shape[2 + d] // st[d])
            total = max(0, (o - 1) * st[d] + wt.shape[2 + d] - x.shape[2 + d])
            pads[d] = total // 2 if ap == "SAME_UPPER" else total - total // 2
            pads[d + 2] = total - pads[d]
    w.case(f"conv_auto_pad_{ap.lower()}", "Conv", [("x", x), ("w", wt)],
           [("y", conv_ref(x, wt, None, st, pads, [1, 1], 1).astype(np.float32))], strides=st, auto_pad=ap)
x, wt = rnd(0, 3, 5, 5), rnd(4, 3, 3, 3)
w.case("conv_batch0", "Conv", [("x", x), ("w", wt)], [("y", np.zeros((0, 4, 3, 3), np.float32))])
w.bad("conv_input_smaller_than_kernel", "Conv", [("x", rnd(1, 3, 2, 2)), ("w", rnd(4, 3, 3, 3))], [("y", TP.FLOAT)], "smaller than")
w.bad("conv_channel_mismatch", "Conv", [("x", rnd(1, 2, 5, 5)), ("w", rnd(4, 3, 3, 3))], [("y", TP.FLOAT)], "channels")
w.bad("conv_rank2", "Conv", [("x", rnd(1, 3)), ("w", rnd(4, 3))], [("y", TP.FLOAT)], "rank")
w.bad("conv_bias_size", "Conv", [("x", rnd(1, 3, 5, 5)), ("w", rnd(4, 3, 3, 3)), ("b", rnd(3))], [("y", TP.FLOAT)], "bias")

# ---- ConvTranspose: pads, output_padding, dilations, groups; output_shape.
CONVTS = [  # x shape, w shape, strides, pads, dilations, group, output_padding
    ((2, 4, 3, 4), (4, 3, 3, 2), [2, 3], [1, 0, 0, 1], [1, 2], 2, [1, 0]),
    ((1, 2, 5), (2, 3, 4), [2], [1, 2], [1], 1, [1]),
    ((1, 2, 2, 3, 2), (2, 2, 2, 2, 3), [1, 2, 2], [0, 0, 1, 0, 1, 0], [2, 1, 1], 2, [0, 1, 0]),
]
for i, (xs, ws, st, pd, dl, g, op) in enumerate(CONVTS):
    x, wt, b = rnd(*xs), rnd(*ws), rnd(ws[1] * g)
    w.case(f"conv_transpose_{i}", "ConvTranspose", [("x", x), ("w", wt), ("b", b)],
           [("y", conv_transpose_ref(x, wt, b, st, pd, dl, g, op).astype(np.float32))],
           strides=st, pads=pd, dilations=dl, group=g, output_padding=op)
# output_shape 5x5 from a full 7x7: total padding 2, split 1/1.
x, wt = rnd(1, 2, 3, 3), rnd(2, 3, 3, 3)
full = conv_transpose_ref(x, wt, None, [2, 2], [0, 0, 0, 0], [1, 1], 1, [0, 0])
w.case("conv_transpose_output_shape", "ConvTranspose", [("x", x), ("w", wt)], [("y", full[:, :, 1:6, 1:6].astype(np.float32))],
       opset=11, strides=[2, 2], output_shape=[5, 5])
w.bad("conv_transpose_channel_mismatch", "ConvTranspose", [("x", rnd(1, 2, 3, 3)), ("w", rnd(3, 2, 3, 3))], [("y", TP.FLOAT)],
      "channels", opset=11)

# ---- Pooling: ceil mode, count_include_pad, dilations, storage_order, 1-d/2-d/3-d.
POOLS = [  # x shape, kernel, strides, pads, dilations (MaxPool only), ceil_mode, count_include_pad
    ((2, 3, 9, 8), [3, 2], [2, 2], [1, 1, 1, 0], [1, 1], 1, 0),
    ((2, 3, 9, 8), [3, 2], [2, 2], [1, 1, 1, 0], [1, 1], 1, 1),
    ((1, 2, 10), [3], [3], [1, 1], [2], 1, 0),
    ((1, 2, 5, 6, 7), [2, 3, 2], [2, 1, 3], [1, 0, 1, 0, 1, 1], [1, 1, 2], 0, 1),
    ((1, 1, 6, 6), [3, 3], [2, 2], [1, 1, 1, 1], [2, 2], 0, 0),
]
for i, (xs, k, st, pd, dl, ceil, cip) in enumerate(POOLS):
    x = rnd(*xs)
    y, _ = pool_ref(x, "avg", k, st, pd, [1] * len(k), ceil, cip)
    w.case(f"average_pool_{i}", "AveragePool", [("x", x)], [("y", y.astype(np.float32))], opset=11,
           kernel_shape=k, strides=st, pads=pd, ceil_mode=ceil, count_include_pad=cip)
    for so in (0, 1):
        if i not in (0, 3) and so == 1:
            continue
        y, ind = pool_ref(x, "max", k, st, pd, dl, ceil, 0, so)
        w.case(f"max_pool_{i}_order{so}", "MaxPool", [("x", x)], [("y", y.astype(np.float32)), ("i", ind)], opset=12,
               kernel_shape=k, strides=st, pads=pd, dilations=dl, ceil_mode=ceil, storage_order=so)
    if i in (0, 3, 4):
        y, _ = pool_ref(x, "lp", k, st, pd, [1] * len(k), 0, 0)
        w.case(f"lp_pool_{i}", "LpPool", [("x", x)], [("y", y.astype(np.float32))], opset=11, kernel_shape=k, strides=st, pads=pd)
x = rng.integers(-128, 127, (1, 2, 7, 7)).astype(np.int8)
y, _ = pool_ref(x, "max", [3, 3], [2, 2], [1, 1, 1, 1], [1, 1], 0, 0)
w.case("max_pool_int8", "MaxPool", [("x", x)], [("y", y.astype(np.int8))], opset=12, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
x = rnd(2, 3, 4, 5)
w.case("global_average_pool", "GlobalAveragePool", [("x", x)], [("y", x.mean(axis=(2, 3), keepdims=True))], opset=1)
w.case("global_max_pool_1d", "GlobalMaxPool", [("x", x[:, :, 0])], [("y", x[:, :, 0].max(axis=2, keepdims=True))], opset=1)
# MaxUnpool puts each value at its flat index and zeros elsewhere.
x = rnd(1, 2, 4, 4)
y, ind = pool_ref(x, "max", [2, 2], [2, 2], [0, 0, 0, 0], [1, 1], 0, 0)
un = np.zeros(x.size, np.float32)
un[ind.ravel()] = y.ravel()
w.case("max_unpool", "MaxUnpool", [("x", y.astype(np.float32)), ("i", ind)], [("y", un.reshape(x.shape))], opset=11, kernel_shape=[2, 2], strides=[2, 2])
# With output_size the indices still address the inferred (N, C, 4, 4) result, which sits at
# the origin of the larger output (as in the suite's test_maxunpool_export_with_output_shape).
w.case("max_unpool_output_size", "MaxUnpool", [("x", y.astype(np.float32)), ("i", ind), ("s", np.array([1, 2, 5, 5], np.int64))],
       [("y", np.pad(un.reshape(x.shape), ((0, 0), (0, 0), (0, 1), (0, 1))))], opset=11, kernel_shape=[2, 2], strides=[2, 2])
w.bad("max_pool_kernel_rank", "MaxPool", [("x", rnd(1, 1, 4, 4))], [("y", TP.FLOAT)], "kernel_shape", opset=12, kernel_shape=[2])
w.bad("average_pool_zero_stride", "AveragePool", [("x", rnd(1, 1, 4, 4))], [("y", TP.FLOAT)], "strides", opset=11,
      kernel_shape=[2, 2], strides=[0, 1])
w.bad("max_unpool_index_out_of_range", "MaxUnpool", [("x", rnd(1, 1, 2, 2)), ("i", np.array([0, 1, 2, 99], np.int64).reshape(1, 1, 2, 2))],
      [("y", TP.FLOAT)], "out of range", opset=11, kernel_shape=[2, 2], strides=[2, 2])
w.bad("max_unpool_negative_index", "MaxUnpool", [("x", rnd(1, 1, 2, 2)), ("i", np.array([-1, 1, 2, 3], np.int64).reshape(1, 1, 2, 2))],
      [("y", TP.FLOAT)], "out of range", opset=11, kernel_shape=[2, 2], strides=[2, 2])

# ---- MatMul / Gemm: 1-d operands, batch broadcasting, empty, large.
for i, (sa, sb) in enumerate([((3,), (3,)), ((3,), (3, 4)), ((2, 3, 4), (4,)), ((2, 1, 3, 4), (5, 4, 2)), ((1, 4), (3, 4, 2)),
                              ((5, 3, 4), (4, 6)), ((70, 300), (300, 600)), ((2, 0, 3), (3, 4))]):
    # Scaled by 1/sqrt(K) so that outputs stay O(1): float32 accumulation error then stays
    # below the suite's absolute tolerance even where large terms cancel.
    a, b = (rnd(*sa) / np.sqrt(sa[-1])).astype(np.float32), rnd(*sb)
    w.case(f"matmul_{i}", "MatMul", [("a", a), ("b", b)], [("y", np.matmul(a.astype(np.float64), b).astype(np.float32))], opset=13)
a, b = rng.integers(-100, 100, (2, 3, 4)).astype(np.int32), rng.integers(-100, 100, (4, 5)).astype(np.int32)
w.case("matmul_int32", "MatMul", [("a", a), ("b", b)], [("y", np.matmul(a, b))], opset=13)
a, b = rnd(3, 4), rnd(4, 5)
w.case("matmul_f64", "MatMul", [("a", a.astype(np.float64)), ("b", b.astype(np.float64))], [("y", a.astype(np.float64) @ b)], opset=13)
w.bad("matmul_inner_mismatch", "MatMul", [("a", rnd(2, 3)), ("b", rnd(4, 2))], [("y", TP.FLOAT)], "inner", opset=13)
a, b = rnd(4, 3), rnd(5, 4)
for cs in [(), (1,), (5,), (3, 1), (3, 5), (1, 5)]:
    c = rnd(*cs) if cs else np.array(1.5, np.float32)
    y = 0.5 * a.T.astype(np.float64) @ b.T + 2.0 * c
    w.case(f"gemm_c_{'x'.join(map(str, cs)) or 'scalar'}", "Gemm", [("a", a), ("b", b), ("c", c)], [("y", y.astype(np.float32))],
           opset=13, alpha=0.5, beta=2.0, transA=1, transB=1)
w.case("gemm_no_c", "Gemm", [("a", a), ("b", b)], [("y", (a.T @ b.T).astype(np.float32))], opset=13, transA=1, transB=1)
w.case("gemm_opset6_broadcast", "Gemm", [("a", a.T.copy()), ("b", b.T.copy()), ("c", np.full(5, 0.5, np.float32))],
       [("y", (a.T @ b.T + 0.5).astype(np.float32))], opset=6, broadcast=1)
w.bad("gemm_c_not_broadcastable", "Gemm", [("a", rnd(2, 3)), ("b", rnd(3, 4)), ("c", rnd(3))], [("y", TP.FLOAT)], "broadcast", opset=13)

# ---- Einsum: explicit/implicit outputs, traces, ellipses, broadcasting, integer.
EQS = [("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ii->i", [(4, 4)]), ("ii", [(4, 4)]),
       ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("i,j->ij", [(3,), (4,)]),
       ("ij,ij->", [(3, 4), (3, 4)]), ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)]), ("iij->j", [(3, 3, 2)]),
       ("ijk->kji", [(2, 3, 4)]), ("...i->...", [(2, 3, 4)]), ("i...->...", [(3, 2, 4)]), ("ab,ab,ab->a", [(3, 4)] * 3),
       ("ba,ca->bc", [(2, 3), (4, 3)]), ("Ab,bA->", [(3, 4), (4, 3)]), ("ij->", [(0, 3)]), ("i,i->i", [(3,), (3,)]),
       ("bii->bi", [(2, 3, 3)]), ("...,...->...", [(2, 3), (3,)]), ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]),
       (" i j , j k -> i k ", [(2, 3), (3, 2)])]
for i, (eq, shapes) in enumerate(EQS):
    ops = [rnd(*s) for s in shapes]
    y = np.einsum(eq.replace(" ", ""), *[o.astype(np.float64) for o in ops])
    w.case(f"einsum_{i}", "Einsum", [(f"x{j}", o) for j, o in enumerate(ops)], [("y", np.asarray(y).astype(np.float32))],
           opset=12, equation=eq)
a, b = rng.integers(-5, 5, (3, 4)).astype(np.int64), rng.integers(-5, 5, (4, 2)).astype(np.int64)
w.case("einsum_int64", "Einsum", [("a", a), ("b", b)], [("y", np.einsum("ij,jk->ik", a, b))], opset=12, equation="ij,jk->ik")
w.bad("einsum_label_size_mismatch", "Einsum", [("a", rnd(2, 3)), ("b", rnd(4, 5))], [("y", TP.FLOAT)], "do not match",
      opset=12, equation="ij,jk->ik")
w.bad("einsum_term_rank", "Einsum", [("a", rnd(2, 3, 4))], [("y", TP.FLOAT)], "does not match", opset=12, equation="ij->i")

# ---- Softmax family: opset 13 (one axis) versus opset < 13 (coerced to 2-d at axis).
x = rnd(2, 3, 4)


def softmax(z, ax):
    e = np.exp(z - z.max(axis=ax, keepdims=True))
    return e / e.sum(axis=ax, keepdims=True)


for ax in [0, 1, 2, -1]:
    a = ax % 3
    x2 = x.reshape(int(np.prod(x.shape[:a])), -1)
    w.case(f"softmax13_axis{ax}", "Softmax", [("x", x)], [("y", softmax(x, ax))], opset=13, axis=ax)
    w.case(f"logsoftmax13_axis{ax}", "LogSoftmax", [("x", x)], [("y", np.log(softmax(x, ax)))], opset=13, axis=ax)
    w.case(f"softmax11_axis{ax}", "Softmax", [("x", x)], [("y", softmax(x2, 1).reshape(x.shape))], opset=11, axis=ax)
    w.case(f"logsoftmax11_axis{ax}", "LogSoftmax", [("x", x)], [("y", np.log(softmax(x2, 1)).reshape(x.shape))], opset=11, axis=ax)
    w.case(f"hardmax11_axis{ax}", "Hardmax", [("x", x)], [("y", (x2 == x2.max(axis=1, keepdims=True)).astype(np.float32).reshape(x.shape))],
           opset=11, axis=ax)
    w.case(f"hardmax13_axis{ax}", "Hardmax", [("x", x)], [("y", (x == x.max(axis=ax, keepdims=True)).astype(np.float32))], opset=13, axis=ax)
big = np.array([[1000, 1001, 1002], [-1000, 0, 1000]], np.float32)
w.case("softmax_large_values", "Softmax", [("x", big)], [("y", softmax(big.astype(np.float64), 1).astype(np.float32))], opset=13)
w.case("softmax_empty", "Softmax", [("x", rnd(0, 3))], [("y", rnd(0, 3))], opset=13)
w.case("hardmax_ties_first", "Hardmax", [("x", np.array([[1, 3, 3], [2, 2, 2]], np.float32))],
       [("y", np.array([[0, 1, 0], [1, 0, 0]], np.float32))], opset=13)
w.bad("softmax_axis_out_of_range", "Softmax", [("x", rnd(2, 3))], [("y", TP.FLOAT)], "out of range", opset=13, axis=2)

# ---- Normalizations.
xb, s, b, m = rnd(2, 3, 4), rnd(3), rnd(3), rnd(3)
v = np.abs(rnd(3)) + 0.1
mean, var = xb.mean(axis=(0, 2)), xb.var(axis=(0, 2))
norm = lambda x, mu, var, eps=1e-5: (x - mu) / np.sqrt(var + eps)
yb = norm(xb, mean.reshape(1, 3, 1), var.reshape(1, 3, 1)) * s.reshape(1, 3, 1) + b.reshape(1, 3, 1)
w.case("batchnorm15_training", "BatchNormalization", [("x", xb), ("s", s), ("b", b), ("m", m), ("v", v)],
       [("y", yb.astype(np.float32)), ("rm", (m * 0.9 + mean * 0.1).astype(np.float32)), ("rv", (v * 0.9 + var * 0.1).astype(np.float32))],
       opset=15, training_mode=1)
d = [a.astype(np.float64) for a in (xb, s, b, m, v)]
yb = norm(d[0], d[3].reshape(1, 3, 1), d[4].reshape(1, 3, 1), 1e-2) * d[1].reshape(1, 3, 1) + d[2].reshape(1, 3, 1)
w.case("batchnorm15_inference_f64", "BatchNormalization", [(n, a.astype(np.float64)) for n, a in [("x", xb), ("s", s), ("b", b), ("m", m), ("v", v)]],
       [("y", yb)], opset=15, epsilon=1e-2)
sc, bs, mm = rnd(3, 4), rnd(3, 4), rnd(3, 4)
vv = np.abs(rnd(3, 4)) + 0.1
w.case("batchnorm7_not_spatial", "BatchNormalization", [("x", xb), ("s", sc), ("b", bs), ("m", mm), ("v", vv)],
       [("y", (norm(xb, mm, vv) * sc + bs).astype(np.float32))], opset=7, spatial=0)
w.bad("batchnorm_param_size", "BatchNormalization", [("x", rnd(2, 3, 4)), ("s", rnd(2)), ("b", rnd(3)), ("m", rnd(3)), ("v", rnd(3))],
      [("y", TP.FLOAT)], "float32[2]", opset=15)
x = rnd(2, 3, 4, 5)
for axis in (1, -2, 0):
    ax = tuple(range(axis % 4, 4))
    mu, var = x.mean(axis=ax, keepdims=True), x.var(axis=ax, keepdims=True)
    s, b = rnd(*x.shape[axis % 4:]), rnd(*x.shape[axis % 4:])
    w.case(f"layernorm_axis{axis}", "LayerNormalization", [("x", x), ("s", s), ("b", b)],
           [("y", (norm(x, mu, var) * s + b).astype(np.float32)), ("mean", mu), ("inv_std", 1 / np.sqrt(var + 1e-5))], axis=axis)
s = rnd(5)
mu, var = x.mean(axis=3, keepdims=True), x.var(axis=3, keepdims=True)
w.case("layernorm_scale_only_f64", "LayerNormalization", [("x", x.astype(np.float64)), ("s", s.astype(np.float64))],
       [("y", norm(x.astype(np.float64), mu, var, 1e-3) * s)], epsilon=1e-3)
w.bad("layernorm_axis_out_of_range", "LayerNormalization", [("x", rnd(2, 3)), ("s", rnd(3))], [("y", TP.FLOAT)], "out of range", axis=5)
w.bad("layernorm_scale_shape", "LayerNormalization", [("x", rnd(2, 3)), ("s", rnd(4))], [("y", TP.FLOAT)], "Scale")
x = rnd(2, 3, 4, 5, 2)
s, b = rnd(3), rnd(3)
mu, var = x.mean(axis=(2, 3, 4), keepdims=True), x.var(axis=(2, 3, 4), keepdims=True)
w.case("instancenorm_3d", "InstanceNormalization", [("x", x), ("s", s), ("b", b)],
       [("y", (norm(x, mu, var, 1e-3) * s.reshape(1, 3, 1, 1, 1) + b.reshape(1, 3, 1, 1, 1)).astype(np.float32))], opset=6, epsilon=1e-3)
x = rnd(2, 3, 4, 5)
for axes in ([0, 2, 3], [1, 3]):
    mu, var = x.mean(axis=tuple(axes), keepdims=True), x.var(axis=tuple(axes), keepdims=True)
    w.case(f"mvn_axes_{''.join(map(str, axes))}", "MeanVarianceNormalization", [("x", x)],
           [("y", ((x - mu) / np.sqrt(var)).astype(np.float32))], opset=13, **({} if axes == [0, 2, 3] else {"axes": axes}))
x = rnd(2, 6, 3, 3)
for size in (3, 4):
    sq = np.zeros_like(x, dtype=np.float64)
    for c in range(6):
        lo, hi = max(0, c - (size - 1) // 2), min(5, c + -(-(size - 1) // 2))
        sq[:, c] = (x[:, lo:hi + 1].astype(np.float64) ** 2).sum(axis=1)
    w.case(f"lrn_size{size}", "LRN", [("x", x)], [("y", (x / (2.0 + 1e-2 / size * sq) ** 0.6).astype(np.float32))],
           opset=13, size=size, alpha=1e-2, beta=0.6, bias=2.0)
w.bad("lrn_without_size", "LRN", [("x", rnd(1, 3, 2, 2))], [("y", TP.FLOAT)], "size", opset=13)

# ---- Quantized ops: per-axis QuantizeLinear/DequantizeLinear, MatMulInteger, ConvInteger, QLinearConv.
x = rnd(2, 3, 4) * 10
s, z = np.array([0.1, 0.2, 0.3], np.float32), np.array([0, 10, -5], np.int8)
w.case("quantize_axis1_int8", "QuantizeLinear", [("x", x), ("s", s), ("z", z)],
       [("y", np.clip(np.rint(x / s.reshape(1, 3, 1)) + z.reshape(1, 3, 1), -128, 127).astype(np.int8))], opset=13, axis=1)
s4, z4 = np.array([0.1, 0.2, 0.3, 0.4], np.float32), np.array([0, 1, 2, 3], np.uint8)
w.case("quantize_axis_last_uint8", "QuantizeLinear", [("x", x), ("s", s4), ("z", z4)],
       [("y", np.clip(np.rint(x / s4) + z4, 0, 255).astype(np.uint8))], opset=13, axis=-1)
w.case("quantize_no_zero_point", "QuantizeLinear", [("x", x), ("s", np.array(0.05, np.float32))],
       [("y", np.clip(np.rint(x / np.float32(0.05)), 0, 255).astype(np.uint8))], opset=10)
w.case("quantize_ties_to_even", "QuantizeLinear", [("x", np.array([0.5, 1.5, 2.5, -0.5, -1.5, 300, -300], np.float32)),
       ("s", np.array(1, np.float32)), ("z", np.array(0, np.int8))], [("y", np.array([0, 2, 2, 0, -2, 127, -128], np.int8))], opset=13)
xq = rng.integers(-128, 127, (2, 3, 4)).astype(np.int8)
w.case("dequantize_axis1", "DequantizeLinear", [("x", xq), ("s", s), ("z", z)],
       [("y", ((xq.astype(np.float32) - z.reshape(1, 3, 1)) * s.reshape(1, 3, 1)).astype(np.float32))], opset=13, axis=1)
w.case("dequantize_int32", "DequantizeLinear", [("x", np.array([-2**31 + 1, 0, 7], np.int32)), ("s", np.array(0.5, np.float32))],
       [("y", np.array([(-2**31 + 1) * 0.5, 0, 3.5], np.float32))], opset=13)
w.bad("quantize_scale_length", "QuantizeLinear", [("x", rnd(2, 3)), ("s", np.ones(4, np.float32)), ("z", np.zeros(4, np.uint8))],
      [("y", TP.UINT8)], "must have 3 elements", opset=13, axis=1)
A, B = rng.integers(0, 255, (3, 4)).astype(np.uint8), rng.integers(-128, 127, (4, 5)).astype(np.int8)
az, bz = rng.integers(0, 255, (3,)).astype(np.uint8), rng.integers(-10, 10, (5,)).astype(np.int8)
w.case("matmul_integer_per_row_col", "MatMulInteger", [("a", A), ("b", B), ("az", az), ("bz", bz)],
       [("y", ((A.astype(np.int32) - az.reshape(3, 1)) @ (B.astype(np.int32) - bz)).astype(np.int32))], opset=10)
A3 = rng.integers(0, 255, (2, 3, 4)).astype(np.uint8)
w.case("matmul_integer_batched", "MatMulInteger", [("a", A3), ("b", B), ("az", np.array(128, np.uint8))],
       [("y", ((A3.astype(np.int32) - 128) @ B.astype(np.int32)).astype(np.int32))], opset=10)
w.bad("qlinear_matmul_zero_point_size", "QLinearMatMul",
      [("a", np.zeros((2, 3), np.uint8)), ("as", np.array(1, np.float32)), ("az", np.zeros(7, np.uint8)), ("b", np.zeros((3, 2), np.uint8)),
       ("bs", np.array(1, np.float32)), ("bz", np.array(0, np.uint8)), ("ys", np.array(1, np.float32)), ("yz", np.array(0, np.uint8))],
      [("y", TP.UINT8)], "zero point", opset=10)
# Integer convolutions compute conv(x - x_zero_point, w - w_zero_point); padding is the zero point
# (a zero in the shifted domain), as in the suite's test_convinteger_with_padding.
x = rng.integers(0, 255, (1, 4, 6, 6)).astype(np.uint8)
wq = rng.integers(-128, 127, (6, 2, 3, 3)).astype(np.int8)
wz = rng.integers(-3, 3, (6,)).astype(np.int8)
yi = conv_ref(x.astype(np.float64) - 7, wq.astype(np.float64) - wz.reshape(6, 1, 1, 1), None, [2, 1], [1, 1, 0, 1], [1, 1], 2)
w.case("conv_integer_group_per_channel", "ConvInteger", [("x", x), ("w", wq), ("xz", np.array(7, np.uint8)), ("wz", wz)],
       [("y", np.rint(yi).astype(np.int32))], opset=10, strides=[2, 1], pads=[1, 1, 0, 1], group=2)
ws = np.linspace(0.01, 0.05, 6).astype(np.float32)
bias = rng.integers(-100, 100, (6,)).astype(np.int32)
real = (yi + bias.reshape(1, 6, 1, 1)) * np.float64(np.float32(0.02)) * ws.reshape(1, 6, 1, 1) / 0.5
w.case("qlinear_conv_per_channel", "QLinearConv",
       [("x", x), ("xs", np.array(0.02, np.float32)), ("xz", np.array(7, np.uint8)), ("w", wq), ("ws", ws), ("wz", wz),
        ("ys", np.array(0.5, np.float32)), ("yz", np.array(3, np.int8)), ("b", bias)],
       [("y", np.clip(np.rint(real) + 3, -128, 127).astype(np.int8))], opset=10, strides=[2, 1], pads=[1, 1, 0, 1], group=2)
# MatMul in float16 (last, so the cases above keep their random draws): the float32 product of
# the widened operands, rounded once (B an input, and B an initializer, which the kernel widens
# and packs once).
for i, (sa, sb) in enumerate([((3,), (3, 4)), ((2, 1, 3, 40), (5, 40, 2)), ((1, 70, 300), (300, 65))]):
    a, b = (rnd(*sa) / np.sqrt(sa[-1])).astype(np.float16), rnd(*sb).astype(np.float16)
    y = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float16)
    w.case(f"matmul_f16_{i}", "MatMul", [("a", a), ("b", b)], [("y", y)], opset=13)
    if len(sb) == 2:
        m = model([helper.make_node("MatMul", ["a", "b"], ["y"])], [value_info("a", a)], [value_info("y", y)],
                  opset=13, initializers=[to_proto(b, "b")])
        w.model_case(f"matmul_f16_{i}_constant_b", m, [a], [y])
w.done()
