"""The fused AdamW kernel (ai.onyx.training) against PyTorch's update written out in float64,
over several steps, in place through an IOBinding, and its refusals."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import onyx


def adamw_model(**attrs):
    f = TensorProto.FLOAT
    names = ["x", "g", "m", "v"]
    node = helper.make_node("AdamW", ["lr", "t"] + names, ["x_new", "m_new", "v_new"], domain="ai.onyx.training", **attrs)
    graph = helper.make_graph([node], "adamw",
                              [helper.make_tensor_value_info("lr", f, []), helper.make_tensor_value_info("t", TensorProto.INT64, [])]
                              + [helper.make_tensor_value_info(n, f, [5]) for n in names],
                              [helper.make_tensor_value_info(n, f, [5]) for n in ("x_new", "m_new", "v_new")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onyx.training", 1)])
    model.ir_version = 8
    return model.SerializeToString()


def reference(x, g, m, v, lr, t, b1, b2, eps, wd):
    x = x * (1 - lr * wd)
    m = m + (1 - b1) * (g - m)
    v = b2 * v + (1 - b2) * g * g
    denom = np.sqrt(v) / np.sqrt(1 - b2 ** t) + eps
    return x - lr / (1 - b1 ** t) * m / denom, m, v


@pytest.mark.parametrize("wd", [0.0, 0.01])
def test_steps_match_pytorchs_update(wd):
    sess = onyx.InferenceSession(adamw_model(beta1=0.8, beta2=0.99, epsilon=1e-6, weight_decay=wd))
    g = np.random.default_rng(0)
    x, m, v = g.standard_normal(5), np.zeros(5), np.zeros(5)
    xs, ms, vs = (a.astype(np.float32) for a in (x, m, v))
    for t in range(1, 6):
        grad = g.standard_normal(5)
        x, m, v = reference(x, grad, m, v, 1e-2, t, 0.8, 0.99, 1e-6, wd)
        xs, ms, vs = sess.run(None, {"lr": np.array(1e-2, np.float32), "t": np.array(t, np.int64), "x": xs,
                                     "g": grad.astype(np.float32), "m": ms, "v": vs})
        np.testing.assert_allclose(xs, x, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(vs, v, rtol=1e-5, atol=1e-9)


def test_in_place_through_an_io_binding():
    sess = onyx.InferenceSession(adamw_model())
    x, m, v = np.ones(5, np.float32), np.zeros(5, np.float32), np.zeros(5, np.float32)
    want = reference(x.astype(np.float64), np.full(5, 0.5), m, v, 1e-3, 1, 0.9, 0.999, 1e-6, 0.0)
    b = sess.io_binding()
    b.bind_cpu_input("lr", np.array(1e-3, np.float32))
    b.bind_cpu_input("t", np.array(1, np.int64))
    b.bind_cpu_input("g", np.full(5, 0.5, np.float32))
    for name, arr in (("x", x), ("m", m), ("v", v)):
        value = onyx.OrtValue.ortvalue_from_numpy(arr)
        b.bind_ortvalue_input(name, value)
        b.bind_ortvalue_output(name + "_new", value)
    sess.run_with_iobinding(b)
    for got, expected in zip((x, m, v), want):  # the caller's arrays now hold the step
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_bad_scalars_and_shapes_are_refused():
    sess = onyx.InferenceSession(adamw_model())
    feeds = {"lr": np.array(1e-3, np.float32), "t": np.array(0, np.int64), "x": np.ones(5, np.float32),
             "g": np.ones(5, np.float32), "m": np.zeros(5, np.float32), "v": np.zeros(5, np.float32)}
    with pytest.raises(onyx.InvalidArgument, match="step must be 1 or more"):
        sess.run(None, feeds)
    with pytest.raises(RuntimeError, match="beta1 and beta2"):
        onyx.InferenceSession(adamw_model(beta1=1.5))
