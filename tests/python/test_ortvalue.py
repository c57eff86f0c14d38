"""OrtValue: from numpy without a copy, by shape and type, back to numpy, DLPack, and
run_with_ort_values."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import onyx as onnxruntime
from conftest import make_model, tensor_info, unary_model

OrtValue = onnxruntime.OrtValue


def test_from_numpy_shares_memory():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = OrtValue.ortvalue_from_numpy(x)
    assert v.data_ptr() == x.ctypes.data
    assert v.shape() == [2, 3]
    assert v.data_type() == "tensor(float)"
    assert v.element_type() == TensorProto.FLOAT
    assert v.device_name() == "cpu"
    assert v.is_tensor() and v.has_value() and not v.is_tensor_sequence() and not v.is_sparse_tensor()
    x[0, 0] = 42  # the OrtValue sees the caller's array
    np.testing.assert_array_equal(v.numpy(), x)
    del x
    assert v.numpy()[0, 0] == 42  # the array is kept alive by the OrtValue


def test_from_numpy_non_contiguous_is_copied_once():
    x = np.arange(12, dtype=np.int64).reshape(3, 4)[:, ::2]
    v = OrtValue.ortvalue_from_numpy(x)
    np.testing.assert_array_equal(v.numpy(), x)
    assert v.element_type() == TensorProto.INT64


def test_from_shape_and_type_and_update_inplace():
    v = OrtValue.ortvalue_from_shape_and_type([2, 2], np.float32, "cpu", 0)
    assert v.shape() == [2, 2] and v.data_type() == "tensor(float)"
    np.testing.assert_array_equal(v.numpy(), np.zeros((2, 2), np.float32))
    v.update_inplace(np.array([[1, 2], [3, 4]], dtype=np.float32))
    np.testing.assert_array_equal(v.numpy(), [[1, 2], [3, 4]])
    with pytest.raises(onnxruntime.InvalidArgument, match="elements"):
        v.update_inplace(np.zeros(3, np.float32))
    w = OrtValue.ortvalue_from_shape_and_type((3,), TensorProto.INT32)  # ONNX type numbers work too
    assert w.data_type() == "tensor(int32)"


def cuda_unusable_reason():
    """None where a CUDA OrtValue can be made, else why not (the EPFail message)."""
    try:
        OrtValue.ortvalue_from_numpy(np.zeros(1, np.float32), "cuda", 0)
        return None
    except onnxruntime.EPFail as e:
        return str(e)


def test_devices_onyx_cannot_reach_are_refused_with_the_reason():
    with pytest.raises(onnxruntime.EPFail, match="unknown device 'dml'"):
        OrtValue.ortvalue_from_numpy(np.zeros(2, np.float32), "dml", 0)
    with pytest.raises(onnxruntime.InvalidArgument, match="id 0"):
        OrtValue.ortvalue_from_numpy(np.zeros(2, np.float32), "cpu", 1)
    why = cuda_unusable_reason()
    if why is None:
        pytest.skip("a CUDA device is usable here (test_cuda_values covers it)")
    if "CUDAExecutionProvider" in onnxruntime.capi.onnxruntime_pybind11_state._built_providers():
        assert "no CUDA device is usable here" in why, why
    else:
        assert "has no CUDA provider" in why, why
    with pytest.raises(onnxruntime.EPFail):
        OrtValue.ortvalue_from_shape_and_type([2], np.float32, "cuda", 0)


def test_cuda_values():
    why = cuda_unusable_reason()
    if why is not None:
        pytest.skip(why)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    v = OrtValue.ortvalue_from_numpy(x, "cuda", 0)
    assert v.device_name() == "cuda" and v.__dlpack_device__() == (2, 0) and v.shape() == [3, 4]
    np.testing.assert_array_equal(v.numpy(), x)
    v.update_inplace(x * 2)
    np.testing.assert_array_equal(v.numpy(), x * 2)
    z = OrtValue.ortvalue_from_shape_and_type([5], np.int64, "cuda", 0)
    np.testing.assert_array_equal(z.numpy(), np.zeros(5, np.int64))


def test_cuda_dlpack_with_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    t = torch.arange(6, dtype=torch.float32, device="cuda").reshape(2, 3) * 3
    v = OrtValue.from_dlpack(t)  # torch's work on its stream is waited for
    assert v.device_name() == "cuda" and v.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(v.numpy(), t.cpu().numpy())
    back = torch.from_dlpack(v)
    assert back.device.type == "cuda" and back.data_ptr() == t.data_ptr()


def test_with_onnx_type_bfloat16_bits():
    bits = np.array([0x3F80, 0x4000], dtype=np.uint16)  # 1.0, 2.0 in bfloat16
    v = OrtValue.ortvalue_from_numpy_with_onnx_type(bits, TensorProto.BFLOAT16)
    assert v.data_type() == "tensor(bfloat16)"
    np.testing.assert_array_equal(v.numpy(), bits)


def test_string_tensor():
    v = OrtValue.ortvalue_from_numpy(np.array(["a", "bc"], dtype=object))
    assert v.data_type() == "tensor(string)"
    assert list(v.numpy()) == ["a", "bc"]


def test_dlpack_round_trip_with_numpy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    v = OrtValue.ortvalue_from_numpy(x)
    assert v.__dlpack_device__() == (1, 0)
    y = np.from_dlpack(v)  # numpy consumes __dlpack__
    assert y.ctypes.data == x.ctypes.data
    np.testing.assert_array_equal(y, x)
    w = OrtValue.from_dlpack(x)  # numpy produces
    assert w.data_ptr() == x.ctypes.data and w.shape() == [3, 4]
    u = OrtValue.from_dlpack(v.to_dlpack())  # a capsule
    np.testing.assert_array_equal(u.numpy(), x)


def test_dlpack_capsule_is_consumed_once():
    cap = OrtValue.ortvalue_from_numpy(np.ones(3, np.float32)).to_dlpack()
    OrtValue.from_dlpack(cap)
    with pytest.raises(onnxruntime.InvalidArgument, match="consumed once"):
        OrtValue.from_dlpack(cap)


def test_dlpack_keeps_memory_alive():
    v = OrtValue.ortvalue_from_numpy(np.arange(1000, dtype=np.float64))
    y = np.from_dlpack(v)
    del v
    assert y[999] == 999.0


def test_dlpack_strings_are_refused():
    with pytest.raises(onnxruntime.InvalidArgument, match="DLPack"):
        OrtValue.ortvalue_from_numpy(np.array(["a"], dtype=object)).to_dlpack()


def test_dlpack_from_torch_when_available():
    torch = pytest.importorskip("torch")
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    v = OrtValue.from_dlpack(t)
    np.testing.assert_array_equal(v.numpy(), t.numpy())
    back = torch.from_dlpack(v)
    assert back.data_ptr() == t.data_ptr()


def test_run_with_ort_values():
    model = make_model([helper.make_node("Add", ["x", "y"], ["z"])],
                       [tensor_info("x", TensorProto.FLOAT, [2]), tensor_info("y", TensorProto.FLOAT, [2])],
                       [tensor_info("z", TensorProto.FLOAT, [2])])
    sess = onnxruntime.InferenceSession(model)
    x = OrtValue.ortvalue_from_numpy(np.array([1, 2], np.float32))
    y = OrtValue.ortvalue_from_numpy(np.array([10, 20], np.float32))
    (z,) = sess.run_with_ort_values(["z"], {"x": x, "y": y})
    assert isinstance(z, OrtValue)
    np.testing.assert_array_equal(z.numpy(), [11, 22])
    (z2,) = sess.run_with_ort_values(None, {"x": z, "y": y})  # an output fed back as an input
    np.testing.assert_array_equal(z2.numpy(), [21, 42])
    with pytest.raises(TypeError, match="OrtValue"):
        sess.run_with_ort_values(None, {"x": np.zeros(2, np.float32), "y": y})
    with pytest.raises(onnxruntime.InvalidArgument, match="float"):
        sess.run_with_ort_values(None, {"x": OrtValue.ortvalue_from_numpy(np.zeros(2, np.int32)), "y": y})


def test_sequence_ortvalue_from_run():
    model = make_model([helper.make_node("SequenceConstruct", ["x", "x"], ["s"])],
                       [tensor_info("x", TensorProto.FLOAT, [2])],
                       [helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)])
    sess = onnxruntime.InferenceSession(model)
    (s,) = sess.run_with_ort_values(None, {"x": OrtValue.ortvalue_from_numpy(np.ones(2, np.float32))})
    assert s.is_tensor_sequence() and not s.is_tensor()
    assert s.data_type() == "seq(tensor(float))"
    assert len(s.numpy()) == 2


def test_set_seed_makes_unseeded_random_ops_repeat():
    sess = onnxruntime.InferenceSession(unary_model("RandomNormalLike", TensorProto.FLOAT, [64]))
    x = np.zeros(64, np.float32)
    onnxruntime.set_seed(7)
    a = sess.run(None, {"x": x})[0]
    b = sess.run(None, {"x": x})[0]
    onnxruntime.set_seed(7)
    c = sess.run(None, {"x": x})[0]
    assert not np.array_equal(a, b)  # each run draws afresh
    np.testing.assert_array_equal(a, c)
