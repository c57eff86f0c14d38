"""The fused GeluGrad kernel (ai.onyx.training) in float32 against GELU's derivative written out
in float64 with math.erf and numpy's tanh, over a range wide enough to reach both tails and
with lengths that leave vector remainders, for both forms; and its refusals."""
import math

import numpy as np
import pytest
from onnx import TensorProto, helper

import onyx


def gelu_grad_model(n, dtype=TensorProto.FLOAT, **attrs):
    node = helper.make_node("GeluGrad", ["dy", "x"], ["dx"], domain="ai.onyx.training", **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(v, dtype, [n]) for v in ("dy", "x")],
                              [helper.make_tensor_value_info("dx", dtype, [n])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onyx.training", 1)])
    model.ir_version = 8
    return model.SerializeToString()


def derivative(x, approximate):
    if approximate == "none":
        cdf = 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
        return cdf + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    k, c = math.sqrt(2 / math.pi), 0.044715
    t = np.tanh(k * (x + c * x ** 3))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("n", [1, 37, 40000])
def test_float32_matches_the_float64_derivative(approximate, n):
    g = np.random.default_rng(n)
    x = np.concatenate([g.uniform(-12, 12, n - 1), [0.0]]).astype(np.float32)
    dy = g.uniform(-2, 2, n).astype(np.float32)
    sess = onyx.InferenceSession(gelu_grad_model(n, approximate=approximate))
    got = sess.run(None, {"dy": dy, "x": x})[0]
    want = dy.astype(np.float64) * derivative(x.astype(np.float64), approximate)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)


def test_double_and_refusals():
    x = np.linspace(-5, 5, 11)
    sess = onyx.InferenceSession(gelu_grad_model(11, TensorProto.DOUBLE))
    np.testing.assert_allclose(sess.run(None, {"dy": np.ones(11), "x": x})[0], derivative(x, "none"), rtol=1e-14)
    with pytest.raises(RuntimeError, match="approximate must be"):
        onyx.InferenceSession(gelu_grad_model(3, approximate="cubic"))
