"""Exception classes and the category each failure maps to, as in onnxruntime."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import onyx
from onyx.capi import onnxruntime_pybind11_state as C
from conftest import make_model, tensor_info, unary_model

NAMES = ["Fail", "InvalidArgument", "NoSuchFile", "NoModel", "EngineError", "RuntimeException", "InvalidProtobuf",
         "ModelLoaded", "NotImplemented", "InvalidGraph", "EPFail"]
ERROR_CLASSES = tuple(getattr(C, n) for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_exception_classes(name):
    cls = getattr(C, name)
    assert getattr(onyx, name) is cls
    assert issubclass(cls, Exception)
    assert cls.__name__ == name
    assert cls.__module__ == "onyx.capi.onnxruntime_pybind11_state"


def test_missing_file(tmp_path):
    path = str(tmp_path / "absent.onnx")
    with pytest.raises(C.NoSuchFile, match="absent.onnx") as e:
        onyx.InferenceSession(path)
    assert str(e.value).startswith("[ONNXRuntimeError] : 3 : NO_SUCHFILE : ")


@pytest.mark.parametrize("data", [b"this is not an onnx model", b"", b"\xff" * 64])
def test_unparsable_bytes(data):
    with pytest.raises(C.InvalidProtobuf) as e:
        onyx.InferenceSession(data)
    assert "INVALID_PROTOBUF" in str(e.value)


def test_unparsable_file(tmp_path):
    path = tmp_path / "garbage.onnx"
    path.write_bytes(b"\x0a\xff\xff\xff")
    with pytest.raises(C.InvalidProtobuf):
        onyx.InferenceSession(str(path))


def test_invalid_graph():
    model = make_model([helper.make_node("Relu", ["undefined_value"], ["y"])],
                       [tensor_info("x", TensorProto.FLOAT, [1])], [tensor_info("y", TensorProto.FLOAT, [1])])
    with pytest.raises(C.InvalidGraph, match="undefined_value"):
        onyx.InferenceSession(model)


def test_unknown_op_is_not_implemented():
    graph = helper.make_graph([helper.make_node("NoSuchOp", ["x"], ["y"], domain="com.example")], "g",
                              [tensor_info("x", TensorProto.FLOAT, [1])], [tensor_info("y", TensorProto.FLOAT, [1])])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])
    with pytest.raises(C.NotImplemented, match="NoSuchOp"):
        onyx.InferenceSession(proto.SerializeToString())


@pytest.fixture
def sess():
    return onyx.InferenceSession(unary_model("Relu", TensorProto.FLOAT, [2, 3]))


def test_wrong_input_name(sess):
    with pytest.raises(C.InvalidArgument, match="Invalid input name: nope.*inputs: x"):
        sess.run(None, {"x": np.zeros((2, 3), np.float32), "nope": np.zeros(1, np.float32)})


def test_wrong_dtype(sess):
    with pytest.raises(C.InvalidArgument) as e:
        sess.run(None, {"x": np.zeros((2, 3), np.float64)})
    assert "Actual: (tensor(double)) , expected: (tensor(float))" in str(e.value)
    assert str(e.value).startswith("[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : ")


def test_wrong_rank(sess):
    with pytest.raises(C.InvalidArgument, match="Invalid rank for input: x Got: 1 Expected: 2"):
        sess.run(None, {"x": np.zeros(6, np.float32)})


def test_wrong_dims(sess):
    with pytest.raises(C.InvalidArgument) as e:
        sess.run(None, {"x": np.zeros((2, 4), np.float32)})
    assert "Got invalid dimensions for input: x" in str(e.value)
    assert "index: 1 Got: 4 Expected: 3" in str(e.value)


def test_unsupported_numpy_dtype(sess):
    with pytest.raises(C.InvalidArgument, match="numpy dtype"):
        sess.run(None, {"x": np.zeros((2, 3), np.dtype([("a", np.int32)]))})


def test_missing_input(sess):
    with pytest.raises(ValueError, match=r"Required inputs \(\['x'\]\) are missing from input feed \(\[\]\)"):
        sess.run(None, {})


def test_wrong_output_name(sess):
    with pytest.raises(C.InvalidArgument, match="Invalid output name: z"):
        sess.run(["z"], {"x": np.zeros((2, 3), np.float32)})


def test_error_while_running():
    model = make_model([helper.make_node("Reshape", ["x", "s"], ["y"])],
                       [tensor_info("x", TensorProto.FLOAT, [6]), tensor_info("s", TensorProto.INT64, [2])],
                       [tensor_info("y", TensorProto.FLOAT, None)])
    sess = onyx.InferenceSession(model)
    (y,) = sess.run(None, {"x": np.arange(6, dtype=np.float32), "s": np.array([2, 3], np.int64)})
    assert y.shape == (2, 3)
    with pytest.raises(ERROR_CLASSES) as e:
        sess.run(None, {"x": np.arange(6, dtype=np.float32), "s": np.array([4, 4], np.int64)})
    assert isinstance(e.value, (C.InvalidArgument, C.RuntimeException))
    assert "Reshape" in str(e.value)
    # The session stays usable after a failed run.
    (y,) = sess.run(None, {"x": np.arange(6, dtype=np.float32), "s": np.array([3, 2], np.int64)})
    assert y.shape == (3, 2)


def test_feed_must_be_a_dict(sess):
    with pytest.raises(TypeError):
        sess.run(None, [np.zeros((2, 3), np.float32)])
