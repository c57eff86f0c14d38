"""onyx's small training kernels (ai.onyx.training) against numpy: GatherGrad (the embedding
gradient: repeated indices add up, negative ones count from the end) and GradAccumulate
(reset ? grad : buffer + grad), and their refusals."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import onyx

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def session(op, inputs, out_shape):
    node = helper.make_node(op, [n for n, _, _ in inputs], ["y"], domain="ai.onyx.training")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                              [helper.make_tensor_value_info("y", F, out_shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onyx.training", 1)])
    model.ir_version = 8
    return onyx.InferenceSession(model.SerializeToString())


def test_gather_grad_adds_rows_at_their_indices():
    sess = session("GatherGrad", [("dy", F, [2, 3, 600]), ("idx", I64, [2, 3]), ("data", F, [7, 600])], [7, 600])
    g = np.random.default_rng(0)
    dy = g.standard_normal((2, 3, 600)).astype(np.float32)
    idx = np.array([[0, 6, -1], [2, 2, 0]], np.int64)  # 6 and -1 are one row; 0 and 2 repeat
    want = np.zeros((7, 600), np.float32)
    np.add.at(want, idx % 7, dy)
    got = sess.run(None, {"dy": dy, "idx": idx, "data": np.ones((7, 600), np.float32)})[0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    with pytest.raises(onyx.InvalidArgument, match="index 7 is out of range for 7 rows"):
        sess.run(None, {"dy": dy, "idx": np.full((2, 3), 7, np.int64), "data": np.ones((7, 600), np.float32)})


def test_grad_accumulate_adds_or_restarts():
    sess = session("GradAccumulate", [("buf", F, [4]), ("g", F, [4]), ("reset", B, [])], [4])
    buf, grad = np.arange(4, dtype=np.float32), np.full(4, 0.5, np.float32)
    np.testing.assert_array_equal(sess.run(None, {"buf": buf, "g": grad, "reset": np.array(False)})[0], buf + grad)
    np.testing.assert_array_equal(sess.run(None, {"buf": buf, "g": grad, "reset": np.array(True)})[0], grad)
    bad = session("GradAccumulate", [("buf", F, [4]), ("g", F, [3]), ("reset", B, [])], [4])
    with pytest.raises(onyx.InvalidArgument, match="must match"):
        bad.run(None, {"buf": buf, "g": grad[:3], "reset": np.array(False)})


def layer_norm_grads(dy, x, scale, axis, eps):
    axes = tuple(range(axis, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    inv_std = 1 / np.sqrt(((x - mu) ** 2).mean(axis=axes, keepdims=True) + eps)
    xhat = (x - mu) * inv_std
    g = dy * scale
    dx = inv_std * (g - g.mean(axis=axes, keepdims=True) - xhat * (g * xhat).mean(axis=axes, keepdims=True))
    rows = tuple(range(axis))
    return dx, (dy * xhat).sum(axis=rows), dy.sum(axis=rows)


@pytest.mark.parametrize("shape,axis", [((4, 6, 32), -1), ((3, 5, 4), 1), ((2, 1000), 1)])
def test_layer_normalization_grad_matches_float64(shape, axis):
    cols = shape[axis:] if axis >= 0 else shape[axis:]
    node = helper.make_node("LayerNormalizationGrad", ["dy", "x", "scale"], ["dx", "dscale", "dbias"],
                            domain="ai.onyx.training", axis=axis, epsilon=1e-5)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("dy", F, list(shape)),
                                            helper.make_tensor_value_info("x", F, list(shape)),
                                            helper.make_tensor_value_info("scale", F, list(cols))],
                              [helper.make_tensor_value_info(n, F, None) for n in ("dx", "dscale", "dbias")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onyx.training", 1)])
    model.ir_version = 8
    g = np.random.default_rng(3)
    dy, x = g.standard_normal(shape).astype(np.float32), (3 + 2 * g.standard_normal(shape)).astype(np.float32)
    scale = g.uniform(0.5, 1.5, cols).astype(np.float32)
    got = onyx.InferenceSession(model.SerializeToString()).run(None, {"dy": dy, "x": x, "scale": scale})
    want = layer_norm_grads(dy.astype(np.float64), x.astype(np.float64), scale.astype(np.float64),
                            axis if axis >= 0 else len(shape) + axis, 1e-5)
    for name, a, b in zip(("dx", "dscale", "dbias"), got, want):
        assert a.shape == b.shape, name
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5, err_msg=name)


def test_gather_grad_accumulates_into_a_buffer_or_restarts():
    sess = session("GatherGrad", [("dy", F, [3, 4]), ("idx", I64, [3]), ("data", F, [5, 4]), ("buf", F, [5, 4]),
                                  ("reset", B, [])], [5, 4])
    dy = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([4, 0, 4], np.int64)
    buf = np.full((5, 4), 10, np.float32)
    scattered = np.zeros((5, 4), np.float32)
    np.add.at(scattered, idx, dy)
    feeds = {"dy": dy, "idx": idx, "data": np.zeros((5, 4), np.float32), "buf": buf}
    np.testing.assert_array_equal(sess.run(None, dict(feeds, reset=np.array(False)))[0], buf + scattered)
    np.testing.assert_array_equal(sess.run(None, dict(feeds, reset=np.array(True)))[0], scattered)
    # In place through an IOBinding: the output bound to the buffer it reads.
    b = sess.io_binding()
    for name, value in dict(feeds, reset=np.array(False)).items():
        if name != "buf":
            b.bind_cpu_input(name, value)
    target = onyx.OrtValue.ortvalue_from_numpy(buf)
    b.bind_ortvalue_input("buf", target)
    b.bind_ortvalue_output("y", target)
    sess.run_with_iobinding(b)
    np.testing.assert_array_equal(buf, np.full((5, 4), 10, np.float32) + scattered)


@pytest.mark.parametrize("ta,tb,a_shape,b_shape", [(0, 1, (2, 3, 4), (5, 4)), (0, 0, (3, 4), (4, 5)),
                                                   (1, 0, (2, 4, 3), (4, 5)), (1, 1, (2, 1, 4, 3), (2, 5, 4))])
def test_fused_matmul_bias_and_its_gradient_match_numpy(ta, tb, a_shape, b_shape):
    """Forward against numpy, then dA, dB and dBias through ONNX's Gradient op (float32: the
    kernel is float32-only) against the closed forms for the loss sum(Y * W)."""
    g = np.random.default_rng(ta * 2 + tb)
    a, b = g.standard_normal(a_shape).astype(np.float32), g.standard_normal(b_shape).astype(np.float32)
    bias = g.standard_normal(5).astype(np.float32)
    op = lambda x, t: np.swapaxes(x, -1, -2) if t else x  # noqa: E731
    y = np.matmul(op(a, ta), op(b, tb)) + bias
    weights = g.standard_normal(y.shape).astype(np.float32)
    nodes = [helper.make_node("FusedMatMulBias", ["a", "b", "bias"], ["y"], domain="ai.onyx.training", transA=ta, transB=tb),
             helper.make_node("Mul", ["y", "w"], ["yw"]), helper.make_node("ReduceSum", ["yw"], ["loss"], keepdims=0),
             helper.make_node("Gradient", ["a", "b", "bias"], ["da", "db", "dbias"], domain="ai.onnx.preview.training",
                              xs=["a", "b", "bias"], y="loss")]
    ins = [("a", a), ("b", b), ("bias", bias), ("w", weights)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, F, list(v.shape)) for n, v in ins],
                              [helper.make_tensor_value_info(n, F, None) for n in ("y", "da", "db", "dbias")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onyx.training", 1),
                                                    helper.make_opsetid("ai.onnx.preview.training", 1)])
    model.ir_version = 8
    got_y, da, db, dbias = onyx.InferenceSession(model.SerializeToString()).run(None, dict(ins))
    np.testing.assert_allclose(got_y, y, rtol=1e-5, atol=1e-5)
    dy = weights.astype(np.float64)
    d_opa = np.matmul(dy, np.swapaxes(op(b, tb), -1, -2).astype(np.float64))
    d_opb = np.matmul(np.swapaxes(op(a, ta), -1, -2).astype(np.float64), dy)
    want_a = op(d_opa, ta)
    want_b = op(d_opb, tb)
    want_a = want_a.sum(axis=tuple(range(want_a.ndim - a.ndim))).reshape(want_a.shape[want_a.ndim - a.ndim:])
    for axis, (n_have, n_want) in enumerate(zip(a.shape, want_a.shape)):
        if n_have == 1 and n_want != 1:
            want_a = want_a.sum(axis=axis, keepdims=True)
    want_b = want_b.sum(axis=tuple(range(want_b.ndim - b.ndim)))
    for axis, (n_have, n_want) in enumerate(zip(b.shape, want_b.shape)):
        if n_have == 1 and n_want != 1:
            want_b = want_b.sum(axis=axis, keepdims=True)
    np.testing.assert_allclose(da, want_a, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, want_b, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dbias, dy.reshape(-1, 5).sum(axis=0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", [(4, 7), (2, 3, 128), (5, 1)])
def test_softmax_grad_matches_float64(shape):
    node = helper.make_node("SoftmaxGrad", ["dy", "y"], ["dx"], domain="ai.onyx.training")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, F, list(shape)) for n in ("dy", "y")],
                              [helper.make_tensor_value_info("dx", F, list(shape))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onyx.training", 1)])
    model.ir_version = 8
    g = np.random.default_rng(len(shape))
    logits = g.standard_normal(shape)
    y = np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)
    dy = g.standard_normal(shape)
    want = y * (dy - (dy * y).sum(axis=-1, keepdims=True))
    got = onyx.InferenceSession(model.SerializeToString()).run(None, {"dy": dy.astype(np.float32), "y": y.astype(np.float32)})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
