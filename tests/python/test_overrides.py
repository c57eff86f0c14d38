"""SessionOptions that change the session: free-dimension overrides, initializer overrides,
profiling."""
import json
import os

import numpy as np
import pytest
from onnx import TensorProto, helper

import onyx
from conftest import make_model, tensor_info


def free_dim_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq"])
    x.type.tensor_type.shape.dim[1].denotation = "DATA_TIME"
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq"])
    return make_model([helper.make_node("Neg", ["x"], ["y"])], [x], [y])


def test_free_dimension_override_by_name_and_denotation():
    so = onyx.SessionOptions()
    so.add_free_dimension_override_by_name("batch", 2)
    so.add_free_dimension_override_by_denotation("DATA_TIME", 5)
    sess = onyx.InferenceSession(free_dim_model(), sess_options=so)
    assert sess.get_inputs()[0].shape == [2, 5]
    (y,) = sess.run(None, {"x": np.ones((2, 5), np.float32)})
    assert y.shape == (2, 5)
    with pytest.raises(onyx.InvalidArgument, match="index: 0 Got: 3 Expected: 2"):
        sess.run(None, {"x": np.ones((3, 5), np.float32)})
    # Without overrides the dims stay symbolic.
    assert onyx.InferenceSession(free_dim_model()).get_inputs()[0].shape == ["batch", "seq"]


def test_negative_free_dimension_is_invalid():
    so = onyx.SessionOptions()
    so.add_free_dimension_override_by_name("batch", -1)
    with pytest.raises(onyx.InvalidArgument):
        onyx.InferenceSession(free_dim_model(), sess_options=so)


def test_add_initializer(add_model):
    so = onyx.SessionOptions()
    weights = np.full((2, 3), 5, np.float32)
    so.add_initializer("b", weights)
    sess = onyx.InferenceSession(add_model, sess_options=so)
    x = np.ones((2, 3), np.float32)
    (y,) = sess.run(None, {"x": x})
    np.testing.assert_array_equal(y, x + 5)
    del weights, so  # the options' copy in the session keeps the array alive
    (y,) = sess.run(None, {"x": x})
    np.testing.assert_array_equal(y, x + 5)


def test_add_external_initializers(add_model):
    so = onyx.SessionOptions()
    so.add_external_initializers(["b"], [np.full((2, 3), -1, np.float32)])
    (y,) = onyx.InferenceSession(add_model, sess_options=so).run(None, {"x": np.ones((2, 3), np.float32)})
    np.testing.assert_array_equal(y, np.zeros((2, 3), np.float32))
    with pytest.raises(onyx.InvalidArgument):
        so.add_external_initializers(["b", "c"], [np.zeros((2, 3), np.float32)])


@pytest.mark.parametrize("name,value", [("b", np.zeros((3, 2), np.float32)), ("b", np.zeros((2, 3), np.float64)),
                                        ("not_an_initializer", np.zeros((2, 3), np.float32))])
def test_bad_initializer_override(add_model, name, value):
    so = onyx.SessionOptions()
    so.add_initializer(name, value)
    with pytest.raises(onyx.InvalidArgument):
        onyx.InferenceSession(add_model, sess_options=so)


def test_profiling(add_model, tmp_path):
    so = onyx.SessionOptions()
    assert so.profile_file_prefix == "onnxruntime_profile_"
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "trace")
    sess = onyx.InferenceSession(add_model, sess_options=so)
    for _ in range(3):
        sess.run(None, {"x": np.ones((2, 3), np.float32)})
    path = sess.end_profiling()
    assert os.path.dirname(path) == str(tmp_path) and path.endswith(".json")
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    assert any("Add" in json.dumps(e) for e in events)
    assert sess.end_profiling() == path  # later calls return the same name
    assert onyx.InferenceSession(add_model).end_profiling() == ""
