"""The gradient rules added for PyTorch's common layers (activations, Max/Min and Clip, the
selecting reductions, CumSum, GatherElements, TopK, Tile, Pad, DepthToSpace, InstanceNormalization)
against torch.autograd in float64, as test_gradients_vs_torch.py checks the first ones: the
op's output weighted by a random tensor and summed, every input's gradient compared."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from test_gradients_vs_torch import SEEDS, check, shapes_that_broadcast

torch = pytest.importorskip("torch")
F = torch.nn.functional


def node(op, inputs, **attrs):
    return helper.make_node(op, inputs, ["y"], **attrs)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op,attrs,fn", [
    ("LeakyRelu", {"alpha": 0.1}, lambda x: F.leaky_relu(x, 0.1)),
    ("Elu", {"alpha": 0.7}, lambda x: F.elu(x, 0.7)),
    ("Selu", {}, F.selu),
    ("Celu", {"alpha": 1.3}, lambda x: F.celu(x, 1.3)),
    ("HardSigmoid", {"alpha": 1 / 6, "beta": 0.5}, F.hardsigmoid),
    ("HardSwish", {}, F.hardswish),
    ("Sin", {}, torch.sin), ("Cos", {}, torch.cos), ("Reciprocal", {}, torch.reciprocal),
    ("Tan", {}, lambda x: torch.tan(x * 0.25)), ("Atan", {}, torch.atan), ("Asin", {}, lambda x: torch.asin(x * 0.15)),
    ("Acos", {}, lambda x: torch.acos(x * 0.15)), ("Sinh", {}, torch.sinh), ("Cosh", {}, torch.cosh),
    ("Asinh", {}, torch.asinh), ("Acosh", {}, lambda x: torch.acosh(x.abs() + 1.5)), ("Atanh", {}, lambda x: torch.atanh(x * 0.15)),
    ("Softsign", {}, F.softsign), ("ThresholdedRelu", {"alpha": 0.5}, lambda x: torch.where(x > 0.5, x, torch.zeros_like(x))),
    ("Floor", {}, torch.floor), ("Ceil", {}, torch.ceil), ("Round", {}, torch.round), ("Sign", {}, torch.sign)])
def test_activations_and_elementwise(op, attrs, fn, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-5, 5, (3, 4, 5))
    if op == "Reciprocal":
        x = np.where(np.abs(x) < 0.3, 0.7, x)
    # The ops defined on part of the line get inputs inside it (the torch side's scaling above
    # is then undone here, so both see the same values).
    inside = {"Tan": 0.25, "Asin": 0.15, "Acos": 0.15, "Atanh": 0.15}
    if op in inside:
        x = x * inside[op]
        fn = {"Tan": torch.tan, "Asin": torch.asin, "Acos": torch.acos, "Atanh": torch.atanh}[op]
    if op == "Acosh":
        x = np.abs(x) + 1.5
        fn = torch.acosh
    # ONNX keeps float attributes (alpha, gamma) in float32; torch's constants are float64.
    float_attrs = op in ("LeakyRelu", "Elu", "Selu", "Celu", "HardSigmoid")
    check([node(op, ["x"], **attrs)], {"x": x}, lambda x: fn(x), tol=1e-7 if float_attrs else 1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_prelu(seed):
    rng = np.random.default_rng(seed)
    x, slope = rng.uniform(-2, 2, (2, 3, 4)), rng.uniform(0, 0.5, (3, 1))
    check([node("PRelu", ["x", "s"])], {"x": x, "s": slope}, lambda x, s: torch.where(x > 0, x, x * s))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op,fn", [("Max", torch.maximum), ("Min", torch.minimum)])
def test_max_and_min_with_broadcasting_and_ties(op, fn, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes_that_broadcast(rng)
    a, b = rng.integers(-2, 3, sa).astype(np.float64), rng.integers(-2, 3, sb).astype(np.float64)  # many ties
    check([node(op, ["a", "b"])], {"a": a, "b": b}, lambda a, b: fn(a, b))


def test_max_of_three():
    rng = np.random.default_rng(5)
    xs = {k: rng.integers(-1, 2, (4, 3)).astype(np.float64) for k in "abc"}
    check([node("Max", ["a", "b", "c"])], xs, lambda a, b, c: torch.stack([a, b, c]).amax(0))


@pytest.mark.parametrize("bounds", [(-0.5, 0.7), (None, 0.2), (-0.1, None)])
def test_clip_includes_its_bounds(bounds):
    rng = np.random.default_rng(1)
    x = np.round(rng.uniform(-1, 1, (4, 5)), 1)  # values on the bounds too
    consts, inputs = [], ["x"]
    for name, v in zip(("lo", "hi"), bounds):
        inputs.append(name if v is not None else "")
        if v is not None:
            consts.append(numpy_helper.from_array(np.array(v), name))
    check([node("Clip", inputs)], {"x": x}, lambda x: torch.clamp(x, *bounds), consts=consts)


@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("op,fn", [("ReduceMax", torch.amax), ("ReduceMin", torch.amin),
                                   ("ReduceLogSumExp", torch.logsumexp)])
def test_selecting_reductions(op, fn, keepdims):
    rng = np.random.default_rng(2)
    x = rng.integers(-2, 3, (3, 4, 5)).astype(np.float64) if op != "ReduceLogSumExp" else rng.normal(size=(3, 4, 5))
    check([node(op, ["x"], axes=[1, 2], keepdims=keepdims)], {"x": x},
          lambda x: fn(x, dim=(1, 2), keepdim=bool(keepdims)) if op != "ReduceLogSumExp"
          else torch.logsumexp(x, dim=(1, 2), keepdim=bool(keepdims)))


@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("reverse", [0, 1])
def test_cumsum(exclusive, reverse):
    x = np.random.default_rng(3).normal(size=(3, 6))
    axis = numpy_helper.from_array(np.array(1, dtype=np.int64), "axis")

    def fn(x):
        y = torch.flip(x, [1]) if reverse else x
        y = torch.cumsum(y, 1)
        if exclusive:
            y = torch.cat([torch.zeros_like(y[:, :1]), y[:, :-1]], 1)
        return torch.flip(y, [1]) if reverse else y
    check([node("CumSum", ["x", "axis"], exclusive=exclusive, reverse=reverse)], {"x": x}, fn, consts=[axis])


def test_gather_elements_adds_repeated_indices():
    rng = np.random.default_rng(4)
    x, idx = rng.normal(size=(3, 5)), rng.integers(0, 5, (3, 7))
    consts = [numpy_helper.from_array(idx, "idx")]
    check([node("GatherElements", ["x", "idx"], axis=1)], {"x": x},
          lambda x: torch.gather(x, 1, torch.tensor(idx)), consts=consts)


def test_top_k():
    x = np.random.default_rng(6).normal(size=(3, 8))
    k = numpy_helper.from_array(np.array([3], dtype=np.int64), "k")
    nodes = [helper.make_node("TopK", ["x", "k"], ["y", "i"], axis=1)]
    check(nodes, {"x": x}, lambda x: torch.topk(x, 3, dim=1)[0], consts=[k])


def test_tile():
    x = np.random.default_rng(7).normal(size=(2, 3))
    reps = numpy_helper.from_array(np.array([3, 2], dtype=np.int64), "reps")
    check([node("Tile", ["x", "reps"])], {"x": x}, lambda x: x.repeat(3, 2), consts=[reps])


@pytest.mark.parametrize("pads", [[1, 0, 2, 3], [0, -1, 1, 2]])
def test_constant_pad_including_cropping(pads):
    x = np.random.default_rng(8).normal(size=(3, 5))
    p = numpy_helper.from_array(np.array(pads, dtype=np.int64), "pads")
    # ONNX pads: begin of each dim, then end of each; torch's F.pad: last dim first, (begin, end).
    check([node("Pad", ["x", "pads"])], {"x": x}, lambda x: F.pad(x, (pads[1], pads[3], pads[0], pads[2])), consts=[p])


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_to_space(mode):
    x = np.random.default_rng(9).normal(size=(2, 8, 3, 2))

    def fn(x):
        if mode == "CRD":
            return F.pixel_shuffle(x, 2)
        n, c, h, w = x.shape
        return x.reshape(n, 2, 2, c // 4, h, w).permute(0, 3, 4, 1, 5, 2).reshape(n, c // 4, h * 2, w * 2)
    check([node("DepthToSpace", ["x"], blocksize=2, mode=mode)], {"x": x}, fn)


@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 3)])
def test_instance_normalization(shape):
    rng = np.random.default_rng(10)
    x, scale, bias = rng.normal(size=shape), rng.normal(size=shape[1]), rng.normal(size=shape[1])
    check([node("InstanceNormalization", ["x", "s", "b"], epsilon=1e-5)], {"x": x, "s": scale, "b": bias},
          lambda x, s, b: F.instance_norm(x, weight=s, bias=b, eps=1e-5), tol=1e-8)


@pytest.mark.parametrize("mode,coord,nearest,torch_mode,align,scale", [
    ("nearest", "asymmetric", "floor", "nearest", None, 2.0),
    ("nearest", "asymmetric", "floor", "nearest", None, 0.5),
    ("linear", "pytorch_half_pixel", None, "bilinear", False, 2.0),
    ("linear", "pytorch_half_pixel", None, "bilinear", False, 0.5),
    ("linear", "align_corners", None, "bilinear", True, 1.5),
    ("cubic", "pytorch_half_pixel", None, "bicubic", False, 2.0)])
def test_resize_as_torch_interpolates(mode, coord, nearest, torch_mode, align, scale):
    x = np.random.default_rng(11).normal(size=(2, 3, 4, 6))
    attrs = {"mode": mode, "coordinate_transformation_mode": coord}
    if nearest:
        attrs["nearest_mode"] = nearest
    if mode == "cubic":
        attrs["cubic_coeff_a"] = -0.75
    scales = numpy_helper.from_array(np.array([1, 1, scale, scale], dtype=np.float32), "scales")
    check([node("Resize", ["x", "", "scales"], **attrs)], {"x": x},
          lambda x: F.interpolate(x, scale_factor=scale, mode=torch_mode, align_corners=align), consts=[scales],
          tol=1e-7)


@pytest.mark.parametrize("stride,pad,out_pad,dilation,groups", [(1, 0, 0, 1, 1), (2, 1, 1, 1, 1), (2, 0, 0, 2, 2),
                                                                 (3, 1, 2, 1, 1)])
def test_conv_transpose(stride, pad, out_pad, dilation, groups):
    rng = np.random.default_rng(12)
    x, w, b = rng.normal(size=(2, 4, 5, 4)), rng.normal(size=(4, 6 // groups, 3, 3)), rng.normal(size=6)
    attrs = {"strides": [stride] * 2, "pads": [pad] * 4, "output_padding": [out_pad] * 2, "dilations": [dilation] * 2,
             "group": groups}
    check([node("ConvTranspose", ["x", "w", "b"], **attrs)], {"x": x, "w": w, "b": b},
          lambda x, w, b: F.conv_transpose2d(x, w, b, stride, pad, out_pad, groups, dilation), tol=1e-8)


@pytest.mark.parametrize("starts,ends,axes,steps,fn", [
    ([-1], [-(2 ** 62)], [1], [-1], lambda x: torch.flip(x, [1])),
    ([0, 1], [2 ** 62, 2 ** 62], [0, 1], [2, 3], lambda x: x[::2, 1::3]),
    ([4], [0], [1], [-2], lambda x: torch.flip(x, [1])[:, 1:5:2])])
def test_slice_with_steps(starts, ends, axes, steps, fn):
    x = np.random.default_rng(13).normal(size=(5, 6))
    consts = [numpy_helper.from_array(np.array(v, dtype=np.int64), n)
              for n, v in (("st", starts), ("en", ends), ("ax", axes), ("sp", steps))]
    check([node("Slice", ["x", "st", "en", "ax", "sp"])], {"x": x}, fn, consts=consts)


def test_slice_with_bounds_known_at_run_time():
    x = np.random.default_rng(14).normal(size=(4, 7))
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Gather", ["shape", "one"], ["n"], axis=0),
             helper.make_node("Sub", ["n", "two"], ["end"]),
             node("Slice", ["x", "start", "end", "axis"])]
    consts = [numpy_helper.from_array(np.array(v, dtype=np.int64), n)
              for n, v in (("one", [1]), ("two", [2]), ("start", [1]), ("axis", [1]))]
    check(nodes, {"x": x}, lambda x: x[:, 1:-2], consts=consts)


@pytest.mark.parametrize("op,fn", [
    ("ReduceL2", lambda x: torch.linalg.vector_norm(x, dim=1)),
    ("ReduceL1", lambda x: x.abs().sum(1)),
    ("ReduceSumSquare", lambda x: (x * x).sum(1)),
    ("ReduceProd", lambda x: x.prod(1))])
def test_norm_and_product_reductions(op, fn):
    rng = np.random.default_rng(15)
    x = rng.normal(size=(5, 4))
    x[1, :] = 0  # a group of zeros (L2's norm 0; a product with several zeros)
    x[2, 1] = 0  # a product with exactly one zero
    if op == "ReduceL2":
        x[1, :] = 0
    check([node(op, ["x"], axes=[1], keepdims=0)], {"x": x}, fn)


@pytest.mark.parametrize("upper,k", [(0, 0), (1, 1), (0, -1)])
def test_trilu(upper, k):
    x = np.random.default_rng(16).normal(size=(2, 4, 5))
    kk = numpy_helper.from_array(np.array(k, dtype=np.int64), "k")
    check([node("Trilu", ["x", "k"], upper=upper)], {"x": x},
          lambda x: torch.triu(x, k) if upper else torch.tril(x, k), consts=[kk])


def test_global_max_pool_gives_the_first_maximum_all():
    x = np.random.default_rng(17).normal(size=(2, 3, 4, 5))
    x[0, 1] = 0.0  # a channel of ties (after a ReLU, say)
    check([node("GlobalMaxPool", ["x"])], {"x": x}, lambda x: F.adaptive_max_pool2d(x, 1))


@pytest.mark.parametrize("include_pad", [0, 1])
@pytest.mark.parametrize("kernel,stride,pad", [(3, 2, 1), (2, 2, 0), (3, 3, 1)])
def test_average_pool_with_ceil_mode(include_pad, kernel, stride, pad):
    x = np.random.default_rng(18).normal(size=(2, 3, 7, 8))
    attrs = {"kernel_shape": [kernel] * 2, "strides": [stride] * 2, "pads": [pad] * 4, "ceil_mode": 1,
             "count_include_pad": include_pad}
    check([node("AveragePool", ["x"], **attrs)], {"x": x},
          lambda x: F.avg_pool2d(x, kernel, stride, pad, ceil_mode=True, count_include_pad=bool(include_pad)))


@pytest.mark.parametrize("equation,shapes", [
    ("bi,bj->bij", [(3, 4), (3, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ij,jk", [(3, 4), (4, 2)]),
    ("ij,jk->i", [(3, 4), (4, 2)]),  # k summed within the second operand alone
    ("abc->ca", [(2, 3, 4)]),
    ("ij,j,jk->ik", [(3, 4), (4,), (4, 2)])])
def test_einsum(equation, shapes):
    rng = np.random.default_rng(19)
    names = [f"x{i}" for i in range(len(shapes))]
    xs = {n: rng.normal(size=s) for n, s in zip(names, shapes)}
    check([node("Einsum", names, equation=equation)], xs, lambda **t: torch.einsum(equation, *[t[n] for n in names]))


def onnx_lstm(x, w, r, b, h0, c0, p, seq_lens, direction):
    """ONNX's LSTM (layout 0, default activations) in torch operations, for autograd: Y [seq, dirs,
    batch, hidden]; gates i, o, f, c; rows past their sequence length keep the state and give 0."""
    seq, batch, _ = x.shape
    hidden = r.shape[2]
    dirs = w.shape[0]
    ys, hs, cs = [], [], []
    for d in range(dirs):
        reverse = direction == "reverse" or d == 1
        h, c = h0[d], c0[d]
        y = [torch.zeros(batch, hidden, dtype=x.dtype) for _ in range(seq)]
        pi, po, pf = p[d, :hidden], p[d, hidden:2 * hidden], p[d, 2 * hidden:]
        for step in range(seq):
            rows = []
            for bi in range(batch):
                n = int(seq_lens[bi])
                if step >= n:
                    rows.append(None)
                    continue
                t = n - 1 - step if reverse else step
                a = x[t, bi] @ w[d].T + h[bi] @ r[d].T + b[d, :4 * hidden] + b[d, 4 * hidden:]
                ai, ao, af, ac = a[:hidden], a[hidden:2 * hidden], a[2 * hidden:3 * hidden], a[3 * hidden:]
                i = torch.sigmoid(ai + pi * c[bi])
                f = torch.sigmoid(af + pf * c[bi])
                cn = f * c[bi] + i * torch.tanh(ac)
                o = torch.sigmoid(ao + po * cn)
                hn = o * torch.tanh(cn)
                rows.append((t, hn, cn))
            h = torch.stack([h[bi] if row is None else row[1] for bi, row in enumerate(rows)])
            c = torch.stack([c[bi] if row is None else row[2] for bi, row in enumerate(rows)])
            for bi, row in enumerate(rows):
                if row is not None:
                    y[row[0]] = torch.cat([y[row[0]][:bi], row[1][None], y[row[0]][bi + 1:]])
        ys.append(torch.stack(y))
        hs.append(h)
        cs.append(c)
    return torch.stack(ys, 1), torch.stack(hs), torch.stack(cs)


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("with_lens", [False, True])
def test_lstm_through_time(direction, with_lens):
    rng = np.random.default_rng(20)
    seq, batch, inp, hidden = 4, 3, 3, 2
    dirs = 2 if direction == "bidirectional" else 1
    xs = {"x": rng.normal(size=(seq, batch, inp)), "w": rng.normal(size=(dirs, 4 * hidden, inp)) * 0.5,
          "r": rng.normal(size=(dirs, 4 * hidden, hidden)) * 0.5, "b": rng.normal(size=(dirs, 8 * hidden)) * 0.3,
          "h0": rng.normal(size=(dirs, batch, hidden)), "c0": rng.normal(size=(dirs, batch, hidden)),
          "p": rng.normal(size=(dirs, 3 * hidden)) * 0.3}
    lens = np.array([4, 2, 3] if with_lens else [seq] * batch, dtype=np.int32)
    consts = [numpy_helper.from_array(lens, "lens")]
    lstm = helper.make_node("LSTM", ["x", "w", "r", "b", "lens", "h0", "c0", "p"], ["y", "y_h", "y_c"],
                            hidden_size=hidden, direction=direction)
    check([lstm], xs, lambda x, w, r, b, h0, c0, p: onnx_lstm(x, w, r, b, h0, c0, p, lens, direction)[0], consts=consts)
    # The final states' gradients too: Y_h * Y_c.
    both = helper.make_node("Mul", ["y_h", "y_c"], ["hc"])

    def final(x, w, r, b, h0, c0, p):
        _, h, c = onnx_lstm(x, w, r, b, h0, c0, p, lens, direction)
        return h * c
    check([lstm, both], xs, final, consts=consts)


def onnx_gru(x, w, r, b, h0, seq_lens, direction, linear_before_reset):
    """ONNX's GRU (layout 0, default activations) in torch operations: (Y, Y_h); gates z, r, h."""
    seq, batch, _ = x.shape
    hidden = r.shape[2]
    ys, hs = [], []
    for d in range(w.shape[0]):
        reverse = direction == "reverse" or d == 1
        h = h0[d]
        y = [torch.zeros(batch, hidden, dtype=x.dtype) for _ in range(seq)]
        wb, rb = b[d, :3 * hidden], b[d, 3 * hidden:]
        for step in range(seq):
            new = []
            for bi in range(batch):
                n = int(seq_lens[bi])
                if step >= n:
                    new.append(h[bi])
                    continue
                t = n - 1 - step if reverse else step
                xw = x[t, bi] @ w[d].T + wb
                z = torch.sigmoid(xw[:hidden] + h[bi] @ r[d, :hidden].T + rb[:hidden])
                rr = torch.sigmoid(xw[hidden:2 * hidden] + h[bi] @ r[d, hidden:2 * hidden].T + rb[hidden:2 * hidden])
                if linear_before_reset:
                    c = torch.tanh(xw[2 * hidden:] + rr * (h[bi] @ r[d, 2 * hidden:].T + rb[2 * hidden:]))
                else:
                    c = torch.tanh(xw[2 * hidden:] + (rr * h[bi]) @ r[d, 2 * hidden:].T + rb[2 * hidden:])
                hn = (1 - z) * c + z * h[bi]
                y[t] = torch.cat([y[t][:bi], hn[None], y[t][bi + 1:]])
                new.append(hn)
            h = torch.stack(new)
        ys.append(torch.stack(y))
        hs.append(h)
    return torch.stack(ys, 1), torch.stack(hs)


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("linear_before_reset", [0, 1])
def test_gru_through_time(direction, linear_before_reset):
    rng = np.random.default_rng(21)
    seq, batch, inp, hidden = 4, 3, 3, 2
    dirs = 2 if direction == "bidirectional" else 1
    xs = {"x": rng.normal(size=(seq, batch, inp)), "w": rng.normal(size=(dirs, 3 * hidden, inp)) * 0.5,
          "r": rng.normal(size=(dirs, 3 * hidden, hidden)) * 0.5, "b": rng.normal(size=(dirs, 6 * hidden)) * 0.3,
          "h0": rng.normal(size=(dirs, batch, hidden))}
    lens = np.array([4, 2, 3], dtype=np.int32)
    consts = [numpy_helper.from_array(lens, "lens")]
    gru = helper.make_node("GRU", ["x", "w", "r", "b", "lens", "h0"], ["y", "y_h"], hidden_size=hidden,
                           direction=direction, linear_before_reset=linear_before_reset)
    fn = lambda x, w, r, b, h0: onnx_gru(x, w, r, b, h0, lens, direction, linear_before_reset)  # noqa: E731
    check([gru], xs, lambda **t: fn(**t)[0], consts=consts)
    check([gru, helper.make_node("Mul", ["y_h", "y_h"], ["hh"])], xs, lambda **t: fn(**t)[1] ** 2, consts=consts)


@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
@pytest.mark.parametrize("activation", ["Tanh", "Relu"])
def test_rnn_through_time(direction, activation):
    rng = np.random.default_rng(22)
    seq, batch, inp, hidden = 4, 3, 3, 2
    dirs = 2 if direction == "bidirectional" else 1
    xs = {"x": rng.normal(size=(seq, batch, inp)), "w": rng.normal(size=(dirs, hidden, inp)) * 0.5,
          "r": rng.normal(size=(dirs, hidden, hidden)) * 0.5, "b": rng.normal(size=(dirs, 2 * hidden)) * 0.3,
          "h0": rng.normal(size=(dirs, batch, hidden))}
    lens = np.array([4, 2, 3], dtype=np.int32)
    act = torch.tanh if activation == "Tanh" else torch.relu

    def fn(x, w, r, b, h0):
        ys = []
        for d in range(dirs):
            h, y = h0[d], [torch.zeros(batch, hidden, dtype=x.dtype) for _ in range(seq)]
            for step in range(seq):
                new = []
                for bi in range(batch):
                    n = int(lens[bi])
                    if step >= n:
                        new.append(h[bi])
                        continue
                    t = n - 1 - step if d == 1 else step
                    hn = act(x[t, bi] @ w[d].T + h[bi] @ r[d].T + b[d, :hidden] + b[d, hidden:])
                    y[t] = torch.cat([y[t][:bi], hn[None], y[t][bi + 1:]])
                    new.append(hn)
                h = torch.stack(new)
            ys.append(torch.stack(y))
        return torch.stack(ys, 1)
    rnn_node = helper.make_node("RNN", ["x", "w", "r", "b", "lens", "h0"], ["y", "y_h"], hidden_size=hidden,
                                direction=direction, activations=[activation] * dirs)
    check([rnn_node], xs, fn, consts=[numpy_helper.from_array(lens, "lens")])


@pytest.mark.parametrize("axis,indices", [(1, 0), (1, [2, 0, 2]), (-1, [[1, 1], [0, 3]]), (2, -1)])
def test_gather_along_any_axis(axis, indices):
    x = np.random.default_rng(23).normal(size=(2, 3, 4))
    idx = np.array(indices, dtype=np.int64)
    consts = [numpy_helper.from_array(idx, "idx")]

    def fn(x):
        i = torch.tensor(idx)
        a = axis % 3
        flat = torch.index_select(x, a, (i.reshape(-1) % x.shape[a]))
        shape = list(x.shape[:a]) + list(i.shape) + list(x.shape[a + 1:])
        return flat.reshape(shape)
    check([node("Gather", ["x", "idx"], axis=axis)], {"x": x}, fn, consts=consts)


def test_gather_nd_adds_repeated_slices():
    x = np.random.default_rng(24).normal(size=(3, 4, 2))
    idx = np.array([[0, 1], [2, 3], [0, 1]], dtype=np.int64)
    check([node("GatherND", ["x", "idx"])], {"x": x}, lambda x: x[torch.tensor(idx[:, 0]), torch.tensor(idx[:, 1])],
          consts=[numpy_helper.from_array(idx, "idx")])


@pytest.mark.parametrize("reduction", ["none", "add"])
def test_scatter_nd(reduction):
    rng = np.random.default_rng(25)
    x, upd = rng.normal(size=(4, 3)), rng.normal(size=(2, 3))
    idx = np.array([[3], [1]], dtype=np.int64)

    def fn(x, u):
        rows = torch.tensor([3, 1])
        return x.index_put((rows,), u, accumulate=reduction == "add")
    check([node("ScatterND", ["x", "idx", "u"], reduction=reduction)], {"x": x, "u": upd}, fn,
          consts=[numpy_helper.from_array(idx, "idx")])


@pytest.mark.parametrize("reduction", ["none", "add"])
def test_scatter_elements(reduction):
    rng = np.random.default_rng(26)
    x, upd = rng.normal(size=(3, 5)), rng.normal(size=(3, 2))
    idx = np.array([[0, 2], [1, 4], [3, 0]], dtype=np.int64)

    def fn(x, u):
        i = torch.tensor(idx)
        return x.scatter_add(1, i, u) if reduction == "add" else x.scatter(1, i, u)
    check([node("ScatterElements", ["x", "idx", "u"], axis=1, reduction=reduction)], {"x": x, "u": upd}, fn,
          consts=[numpy_helper.from_array(idx, "idx")])


@pytest.mark.parametrize("op", ["ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceMax", "ReduceProd"])
def test_a_reduction_of_no_axes_with_noop_passes_the_gradient_through(op):
    # onyx's reductions pass X through when no axes are given with noop_with_empty_axes.
    x = np.random.default_rng(27).normal(size=(3, 4))
    check([node(op, ["x"], noop_with_empty_axes=1)], {"x": x}, lambda x: x * 1, opset=18)
