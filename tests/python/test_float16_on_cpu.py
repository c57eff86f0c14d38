"""float16 models on the CPU: a node whose CPU kernel has no float16 path (MultiHeadAttention
here) computes in float32 and its float16 outputs are narrowed back (GraphPlan's float16
fallback), so a model `onyx optimize --float16` writes runs; other missing kernels stay errors."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import onyx


def attention_model(elem_type, num_heads=2):
    node = helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["y"], domain="com.microsoft", num_heads=num_heads)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(x, elem_type, [2, 5, 8]) for x in "qkv"],
                              [helper.make_tensor_value_info("y", elem_type, [2, 5, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model.SerializeToString()


def feeds(dtype):
    g = np.random.default_rng(3)
    return {x: g.standard_normal((2, 5, 8)).astype(dtype) for x in "qkv"}


def test_a_float16_attention_runs_as_float32_inside_and_answers_in_float16():
    reference = onyx.InferenceSession(attention_model(TensorProto.FLOAT)).run(None, feeds(np.float32))[0]
    half = onyx.InferenceSession(attention_model(TensorProto.FLOAT16))
    y = half.run(None, feeds(np.float16))[0]
    assert y.dtype == np.float16 and y.shape == (2, 5, 8)
    # float16 inputs (3 significant digits) and a float16 result: within float16's rounding
    np.testing.assert_allclose(y.astype(np.float32), reference, atol=3e-3, rtol=3e-3)
    # the same through an IoBinding whose output is a float16 buffer of the caller's
    out = np.zeros((2, 5, 8), np.float16)
    binding = half.io_binding()
    for name, value in feeds(np.float16).items():
        binding.bind_cpu_input(name, value)
    binding.bind_output("y", "cpu", 0, np.float16, out.shape, out.ctypes.data)
    half.run_with_iobinding(binding)
    np.testing.assert_array_equal(out, y)


def test_a_kernel_missing_for_other_types_is_still_an_error_naming_it():
    sess = onyx.InferenceSession(attention_model(TensorProto.DOUBLE))
    with pytest.raises(onyx.capi.onnxruntime_pybind11_state.NotImplemented, match="MultiHeadAttention"):
        sess.run(None, feeds(np.float64))
