"""External data held in memory for models loaded from bytes, and arena shrinkage per run."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import onyx as onnxruntime
from conftest import make_model, tensor_info


def external_add_model():
    """y = x + w, with w float[4] stored externally in 'w.bin' at offset 8."""
    w = TensorProto()
    w.name, w.data_type = "w", TensorProto.FLOAT
    w.dims.append(4)
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "w.bin"), ("offset", "8"), ("length", "16")):
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    return make_model([helper.make_node("Add", ["x", "w"], ["y"])], [tensor_info("x", TensorProto.FLOAT, [4])],
                      [tensor_info("y", TensorProto.FLOAT, [4])], [w])


def test_files_in_memory():
    file = np.array([-1, -1, 10, 20, 30, 40], np.float32)
    so = onnxruntime.SessionOptions()
    so.add_external_initializers_from_files_in_memory(["w.bin"], [file], [file.nbytes])
    (y,) = onnxruntime.InferenceSession(external_add_model(), so).run(None, {"x": np.ones(4, np.float32)})
    np.testing.assert_array_equal(y, [11, 21, 31, 41])
    raw = bytearray(file.tobytes())  # any object with the buffer protocol
    so2 = onnxruntime.SessionOptions()
    so2.add_external_initializers_from_files_in_memory(["w.bin"], [raw], [len(raw)])
    (y2,) = onnxruntime.InferenceSession(external_add_model(), so2).run(None, {"x": np.zeros(4, np.float32)})
    np.testing.assert_array_equal(y2, [10, 20, 30, 40])


def test_files_in_memory_errors():
    with pytest.raises(onnxruntime.InvalidGraph, match="hold the file in memory"):
        onnxruntime.InferenceSession(external_add_model())
    so = onnxruntime.SessionOptions()
    with pytest.raises(ValueError, match="length"):
        so.add_external_initializers_from_files_in_memory(["w.bin"], [b"1234"], [8])
    so.add_external_initializers_from_files_in_memory(["w.bin"], [b"12345678"], [8])
    with pytest.raises(onnxruntime.InvalidGraph, match="past the end"):
        onnxruntime.InferenceSession(external_add_model(), so)


def test_arena_shrinkage_run_config():
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [tensor_info("x", TensorProto.FLOAT, ["n"])],
                       [tensor_info("y", TensorProto.FLOAT, ["n"])])
    sess = onnxruntime.InferenceSession(model)
    ro = onnxruntime.RunOptions()
    ro.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    for n in (10, 1000, 5):
        (y,) = sess.run(None, {"x": -np.ones(n, np.float32)}, ro)
        assert y.shape == (n,) and not y.any()
