"""SessionOptions.register_custom_ops_library: an ONNX Runtime custom-op library, written in C
against ORT's C API alone (tests/capi/custom_op_library.c, domain onyx.test), loaded from
Python and run: answers, types, its errors, and what happens without it."""
import os

import numpy as np
import pytest
from onnx import TensorProto, helper

import onyx

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "capi", "custom_ops.onnx")


def library():
    path = os.environ.get("ONYX_TEST_CUSTOM_OPS_LIBRARY") or os.path.join(
        os.path.dirname(onyx.__file__), "..", "..", "tests", "libonyx_test_custom_ops.so")
    assert os.path.exists(path), f"the test custom-op library is not built: {path}"
    return path


def options():
    so = onyx.SessionOptions()
    so.register_custom_ops_library(library())
    return so


def join_model(node_name, **attrs):
    node = helper.make_node("Join", ["a", "b"], ["y"], name=node_name, domain="onyx.test", **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2]),
                                            helper.make_tensor_value_info("b", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("onyx.test", 1)])
    model.ir_version = 8
    return model.SerializeToString()


def test_the_library_s_ops_run_with_their_answers():
    sess = onyx.InferenceSession(MODEL, options(), providers=["CPUExecutionProvider"])
    g = np.random.default_rng(0)
    x = g.standard_normal((2, 3)).astype(np.float32)
    y = g.standard_normal((2, 3)).astype(np.float32)
    n = np.array([3, -4], np.int64)
    z, joined, ints = sess.run(None, {"x": x, "y": y, "n": n})
    np.testing.assert_allclose(z, x + 0.5 * y, rtol=1e-6)
    np.testing.assert_allclose(joined, np.concatenate([(x + 0.5 * y).ravel(), x.ravel()]), rtol=1e-6)
    assert ints.dtype == np.int64 and ints.tolist() == [3, -4] * 3


def test_without_the_library_the_op_is_named():
    with pytest.raises(onyx.capi.onnxruntime_pybind11_state.NotImplemented, match="onyx.test:ScaledAdd"):
        onyx.InferenceSession(MODEL, providers=["CPUExecutionProvider"])


def test_a_missing_library_is_a_clear_error():
    so = onyx.SessionOptions()
    with pytest.raises(Exception, match="cannot open the custom op library /nonexistent/libx.so"):
        so.register_custom_ops_library("/nonexistent/libx.so")


def test_the_op_s_own_errors_reach_the_caller_with_its_message():
    with pytest.raises(Exception, match="tag differs from the node name"):  # from CreateKernelV2
        onyx.InferenceSession(join_model("named", tag="other"), options())
    sess = onyx.InferenceSession(join_model("named", fail=1), options())
    with pytest.raises(onyx.capi.onnxruntime_pybind11_state.InvalidArgument, match="Join was asked to fail"):
        sess.run(None, {"a": np.ones(2, np.float32), "b": np.ones(3, np.float32)})
    ok = onyx.InferenceSession(join_model("named", tag="named"), options())
    out = ok.run(None, {"a": np.array([1, 2], np.float32), "b": np.array([3, 4, 5], np.float32)})[0]
    assert out.tolist() == [1, 2, 3, 4, 5]


def test_a_wrong_input_type_is_refused_before_the_op_sees_it():
    # ScaledAdd declares float32 inputs; a model that gives it int64 ones fails at run, naming
    # the op and the type, instead of the op reading int64 bits as floats.
    node = helper.make_node("ScaledAdd", ["a", "b"], ["c"], domain="onyx.test", alpha=2.0)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("a", TensorProto.INT64, [2]),
                                            helper.make_tensor_value_info("b", TensorProto.INT64, [2])],
                              [helper.make_tensor_value_info("c", TensorProto.INT64, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("onyx.test", 1)])
    model.ir_version = 8
    sess = onyx.InferenceSession(model.SerializeToString(), options())
    with pytest.raises(onyx.capi.onnxruntime_pybind11_state.InvalidArgument,
                       match="onyx.test:ScaledAdd.*input 0 is .*int64.*takes element type float"):
        sess.run(None, {"a": np.ones(2, np.int64), "b": np.ones(2, np.int64)})


def test_sessions_outlive_their_options():
    so = options()
    sess = onyx.InferenceSession(MODEL, so)
    del so
    import gc
    gc.collect()
    x = np.ones((2, 3), np.float32)
    z = sess.run(["z"], {"x": x, "y": x, "n": np.zeros(2, np.int64)})[0]
    np.testing.assert_allclose(z, 1.5 * x)


def test_session_config_entries_reach_the_op():
    so = options()
    so.add_session_config_entry("onyx.test.refuse_join", "1")
    with pytest.raises(Exception, match="Join refused by the session config"):
        onyx.InferenceSession(MODEL, so)
