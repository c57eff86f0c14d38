"""SessionOptions.optimized_model_filepath and its external-data config entries."""
import os

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onyx as onnxruntime
from conftest import make_model, tensor_info


def gelu_matmul_model():
    """y = Gelu-written-out(x @ w): the erf GELU fuses at ORT_ENABLE_EXTENDED and above."""
    w = (np.arange(64, dtype=np.float32).reshape(8, 8) % 5 - 2) * 0.25
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]),
             helper.make_node("Div", ["m", "sqrt2"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
             helper.make_node("Add", ["e", "one"], ["p"]), helper.make_node("Mul", ["m", "p"], ["q"]),
             helper.make_node("Mul", ["q", "half"], ["y"])]
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array(1.4142135, np.float32), "sqrt2"),
             numpy_helper.from_array(np.array(1.0, np.float32), "one"),
             numpy_helper.from_array(np.array(0.5, np.float32), "half")]
    return make_model(nodes, [tensor_info("x", TensorProto.FLOAT, ["n", 8])], [tensor_info("y", TensorProto.FLOAT, ["n", 8])],
                      inits)


def test_optimized_model_is_saved_and_reloads(tmp_path):
    path = tmp_path / "opt.onnx"
    so = onnxruntime.SessionOptions()
    so.optimized_model_filepath = str(path)
    so.add_session_config_entry("session.optimized_model_external_initializers_file_name", "opt.data")
    so.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "100")
    x = np.linspace(-2, 2, 24, dtype=np.float32).reshape(3, 8)
    (want,) = onnxruntime.InferenceSession(gelu_matmul_model(), so).run(None, {"x": x})
    assert path.exists() and (tmp_path / "opt.data").stat().st_size == 256  # w: 64 floats
    import onnx
    saved = onnx.load(str(path), load_external_data=False)
    assert len(saved.graph.node) < 6  # the GELU was fused
    plain = onnxruntime.SessionOptions()
    plain.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    (got,) = onnxruntime.InferenceSession(str(path), plain).run(None, {"x": x})
    np.testing.assert_array_equal(got, want)


def test_bad_min_size_entry_is_refused():
    so = onnxruntime.SessionOptions()
    with pytest.raises(ValueError, match="byte count"):
        so.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "-5")


def test_unwritable_path_fails_the_session(tmp_path):
    so = onnxruntime.SessionOptions()
    so.optimized_model_filepath = os.path.join(str(tmp_path), "missing_dir", "opt.onnx")
    with pytest.raises(onnxruntime.RuntimeException, match="missing_dir"):
        onnxruntime.InferenceSession(gelu_matmul_model(), so)
