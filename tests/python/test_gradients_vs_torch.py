"""Every gradient rule against PyTorch autograd, in float64, on random inputs and random shapes
(broadcasting included): the op's output is weighted by a random tensor and summed, and the
gradients onyx builds (through ONNX's Gradient op) must equal torch.autograd's for every input.
The finite-difference checks of test_gradients.py test the same rules another way."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onyx
from conftest import tensor_info

torch = pytest.importorskip("torch")
F = torch.nn.functional
D = TensorProto.DOUBLE
SEEDS = range(3)


def onyx_grads(nodes, xs, out, consts=(), domains=(), opset=17):
    """({x: d sum(out * w) / d x} for each x in xs ({name: array}), w): w a random weighting of
    out's shape; consts are initializers."""
    model, weights = weighted_gradient_model(nodes, xs, out, consts, domains, opset, np.random.default_rng(11))
    outs = onyx.InferenceSession(model).run(None, dict(xs))
    return dict(zip(xs, outs[1:])), weights


def weighted_gradient_model(nodes, xs, out, consts, domains, opset, rng):
    graph_nodes = list(nodes) + [helper.make_node("Shape", [out], ["out_shape__"])]
    graph = helper.make_graph(graph_nodes, "g", [tensor_info(n, D, list(v.shape)) for n, v in xs.items()],
                              [tensor_info("out_shape__", TensorProto.INT64, None)], list(consts))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains])
    model.ir_version = 8
    # Run once for the output's shape, then weight it by a random tensor and differentiate.
    shape = onyx.InferenceSession(model.SerializeToString()).run(None, dict(xs))[0]
    weights = numpy_helper.from_array(rng.uniform(-1, 1, tuple(shape)), "weights__")
    names = list(xs)
    full = list(nodes) + [helper.make_node("Mul", [out, "weights__"], ["weighted__"]),
                          helper.make_node("ReduceSum", ["weighted__"], ["loss__"], keepdims=0),
                          helper.make_node("Gradient", names, [f"d_{n}" for n in names], domain="ai.onnx.preview.training",
                                           xs=names, y="loss__")]
    graph = helper.make_graph(full, "g", [tensor_info(n, D, list(v.shape)) for n, v in xs.items()],
                              [tensor_info("weighted__", D, None)] + [tensor_info(f"d_{n}", D, None) for n in names],
                              list(consts) + [weights])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid("ai.onnx.preview.training", 1)]
                              + [helper.make_opsetid(d, 1) for d in domains])
    model.ir_version = 8
    return model.SerializeToString(), numpy_helper.to_array(weights)


def check(nodes, xs, torch_fn, consts=(), domains=(), opset=17, tol=1e-9):
    grads, weights = onyx_grads(nodes, xs, nodes[-1].output[0], consts, domains, opset)
    tx = {k: torch.tensor(v, requires_grad=True) for k, v in xs.items()}
    (torch_fn(**tx) * torch.tensor(weights)).sum().backward()
    for name in xs:
        np.testing.assert_allclose(grads[name], tx[name].grad.numpy(), rtol=tol, atol=tol, err_msg=f"d/d{name}")


def shapes_that_broadcast(rng, rank=3):
    full = tuple(int(d) for d in rng.integers(1, 5, rank))
    other = tuple(d if rng.random() < 0.5 else 1 for d in full)[int(rng.integers(0, rank)):]
    return (full, other) if rng.random() < 0.5 else (other, full)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op,fn", [("Add", torch.add), ("Sub", torch.sub), ("Mul", torch.mul), ("Div", torch.div),
                                   ("Pow", torch.pow)])
def test_binary_ops(op, fn, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes_that_broadcast(rng)
    a = rng.uniform(0.5, 2.0, sa)
    b = rng.uniform(0.5, 2.0, sb) if op != "Pow" else rng.uniform(-1.5, 1.5, sb)
    check([helper.make_node(op, ["a", "b"], ["y"])], {"a": a, "b": b}, lambda a, b: fn(a, b))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op,fn,low", [("Neg", torch.neg, -2), ("Sqrt", torch.sqrt, 0.5), ("Relu", torch.relu, -2),
                                       ("Tanh", torch.tanh, -2), ("Sigmoid", torch.sigmoid, -3), ("Exp", torch.exp, -2),
                                       ("Log", torch.log, 0.5), ("Erf", torch.erf, -2), ("Abs", torch.abs, -2),
                                       ("Softplus", F.softplus, -3), ("Identity", lambda x: x * 1, -2)])
def test_unary_ops(op, fn, low, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(low, 2.0, tuple(int(d) for d in rng.integers(1, 6, 2)))
    if op in ("Relu", "Abs"):
        x[np.abs(x) < 1e-3] = 0.5
    check([helper.make_node(op, ["x"], ["y"])], {"x": x}, fn)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(approximate):
    x = np.random.default_rng(3).uniform(-3, 3, (4, 5))
    check([helper.make_node("Gelu", ["x"], ["y"], approximate=approximate)], {"x": x},
          lambda x: F.gelu(x, approximate=approximate), opset=20)


@pytest.mark.parametrize("seed", SEEDS)
def test_matmul_batched_and_gemm(seed):
    rng = np.random.default_rng(seed)
    batch_a, batch_b = shapes_that_broadcast(rng, 2)
    m, k, n = (int(d) for d in rng.integers(1, 5, 3))
    a, b = rng.standard_normal(batch_a + (m, k)), rng.standard_normal(batch_b + (k, n))
    check([helper.make_node("MatMul", ["a", "b"], ["y"])], {"a": a, "b": b}, lambda a, b: a @ b)
    ta, tb = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    a2, b2, c = rng.standard_normal((k, m) if ta else (m, k)), rng.standard_normal((n, k) if tb else (k, n)), rng.standard_normal((n,))
    check([helper.make_node("Gemm", ["a", "b", "c"], ["y"], transA=ta, transB=tb, alpha=0.5, beta=1.5)],
          {"a": a2, "b": b2, "c": c},
          lambda a, b, c: 0.5 * ((a.T if ta else a) @ (b.T if tb else b)) + 1.5 * c)


@pytest.mark.parametrize("seed", SEEDS)
def test_softmax_log_softmax_and_layer_norm(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(tuple(int(d) for d in rng.integers(2, 5, 3)))
    axis = int(rng.integers(-3, 3))
    check([helper.make_node("Softmax", ["x"], ["y"], axis=axis)], {"x": x}, lambda x: torch.softmax(x, axis))
    check([helper.make_node("LogSoftmax", ["x"], ["y"], axis=axis)], {"x": x}, lambda x: torch.log_softmax(x, axis))
    ln_axis = int(rng.integers(1, 3))
    norm = x.shape[ln_axis:]
    scale, bias = rng.uniform(0.5, 1.5, norm), rng.standard_normal(norm)
    check([helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y"], axis=ln_axis, epsilon=1e-5)],
          {"x": x, "scale": scale, "bias": bias}, lambda x, scale, bias: F.layer_norm(x, norm, scale, bias, 1e-5), tol=1e-8)


@pytest.mark.parametrize("seed", SEEDS)
def test_conv_and_pools(seed):
    rng = np.random.default_rng(seed)
    group = int(rng.choice([1, 2]))
    c_in, c_out = 2 * group, 2 * group
    stride, dilation, pad = int(rng.integers(1, 3)), int(rng.integers(1, 3)), int(rng.integers(0, 2))
    x, w, b = rng.standard_normal((2, c_in, 7, 6)), rng.standard_normal((c_out, c_in // group, 3, 2)), rng.standard_normal(c_out)
    check([helper.make_node("Conv", ["x", "w", "b"], ["y"], group=group, strides=[stride] * 2, dilations=[dilation] * 2,
                            pads=[pad] * 4)],
          {"x": x, "w": w, "b": b},
          lambda x, w, b: F.conv2d(x, w, b, stride=stride, padding=pad, dilation=dilation, groups=group), tol=1e-8)
    check([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[stride] * 2)], {"x": x},
          lambda x: F.max_pool2d(x, 2, stride))
    check([helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 2], strides=[stride] * 2, pads=[pad] * 4,
                            count_include_pad=1)], {"x": x},
          lambda x: F.avg_pool2d(x, (3, 2), stride, padding=pad, count_include_pad=True))
    check([helper.make_node("GlobalAveragePool", ["x"], ["y"])], {"x": x},
          lambda x: x.mean(dim=(2, 3), keepdim=True))


@pytest.mark.parametrize("seed", SEEDS)
def test_batch_normalization_in_training_mode(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 3, 2, 5))
    scale, bias = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3)
    consts = [numpy_helper.from_array(np.zeros(3), "mean"), numpy_helper.from_array(np.ones(3), "var")]
    check([helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y", "rm", "rv"],
                            training_mode=1, epsilon=1e-5, momentum=0.9)],
          {"x": x, "scale": scale, "bias": bias},
          lambda x, scale, bias: F.batch_norm(x, torch.zeros(3, dtype=x.dtype), torch.ones(3, dtype=x.dtype), scale, bias,
                                              training=True, eps=1e-5), consts=consts, tol=1e-8)


@pytest.mark.parametrize("seed", SEEDS)
def test_shape_ops(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, 4))
    perm = [int(p) for p in rng.permutation(3)]
    check([helper.make_node("Transpose", ["x"], ["y"], perm=perm)], {"x": x}, lambda x: x.permute(*perm))
    shape = numpy_helper.from_array(np.array([4, -1], np.int64), "shape")
    check([helper.make_node("Reshape", ["x", "shape"], ["y"])], {"x": x}, lambda x: x.reshape(4, -1), consts=[shape])
    check([helper.make_node("Flatten", ["x"], ["y"], axis=2)], {"x": x}, lambda x: x.reshape(6, 4))
    axes = numpy_helper.from_array(np.array([1, 3], np.int64), "axes")
    check([helper.make_node("Unsqueeze", ["x", "axes"], ["y"])], {"x": x}, lambda x: x.unsqueeze(1).unsqueeze(3), consts=[axes])
    y = rng.standard_normal((2, 1, 4))
    check([helper.make_node("Concat", ["x", "y"], ["z"], axis=1)], {"x": x, "y": y}, lambda x, y: torch.cat([x, y], 1))
    starts, ends = numpy_helper.from_array(np.array([1, 0], np.int64), "starts"), numpy_helper.from_array(np.array([3, 3], np.int64), "ends")
    sl_axes = numpy_helper.from_array(np.array([1, 2], np.int64), "sl_axes")
    check([helper.make_node("Slice", ["x", "starts", "ends", "sl_axes"], ["y"])], {"x": x}, lambda x: x[:, 1:3, 0:3],
          consts=[starts, ends, sl_axes])
    expand = numpy_helper.from_array(np.array([3, 2, 3, 4], np.int64), "expand")
    check([helper.make_node("Expand", ["x", "expand"], ["y"])], {"x": x}, lambda x: x.expand(3, 2, 3, 4), consts=[expand])
    red = numpy_helper.from_array(np.array([int(rng.integers(0, 3))], np.int64), "red")
    axis = int(numpy_helper.to_array(red)[0])
    check([helper.make_node("ReduceSum", ["x", "red"], ["y"], keepdims=0)], {"x": x}, lambda x: x.sum(axis), consts=[red])
    check([helper.make_node("ReduceMean", ["x"], ["y"], axes=[axis], keepdims=1)], {"x": x}, lambda x: x.mean(axis, keepdim=True))
    cond = numpy_helper.from_array(rng.random((3, 4)) < 0.5, "cond")
    check([helper.make_node("Where", ["cond", "x", "y2"], ["y"])], {"x": x, "y2": rng.standard_normal((1, 4))},
          lambda x, y2: torch.where(torch.tensor(numpy_helper.to_array(cond)), x, y2), consts=[cond])
    ids = numpy_helper.from_array(rng.integers(-5, 5, (3, 2)).astype(np.int64), "ids")
    table = rng.standard_normal((5, 3))
    check([helper.make_node("Gather", ["table", "ids"], ["y"])], {"table": table},
          lambda table: table[torch.tensor(numpy_helper.to_array(ids)) % 5], consts=[ids])


@pytest.mark.parametrize("seed", SEEDS)
def test_losses(seed):
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(2, 6)), int(rng.integers(2, 5))
    scores, labels = rng.standard_normal((n, c)), rng.integers(0, c, n).astype(np.int64)
    lab = numpy_helper.from_array(labels, "labels")
    check([helper.make_node("SoftmaxCrossEntropyLoss", ["scores", "labels"], ["y"], reduction="mean")], {"scores": scores},
          lambda scores: F.cross_entropy(scores, torch.tensor(labels)), consts=[lab])
    check([helper.make_node("NegativeLogLikelihoodLoss", ["scores", "labels"], ["y"], reduction="sum")], {"scores": scores},
          lambda scores: F.nll_loss(scores, torch.tensor(labels), reduction="sum"), consts=[lab])
