"""The narrow element types (float8, float4e2m1, int4/uint4, int2/uint2) through onyx's Python
API, as numpy users hold them: ml_dtypes arrays in and out, one element per byte in numpy and
packed in the tensor. Values are checked against ml_dtypes' own conversions and the spec's
rules (onnxruntime 1.30's Python cannot return these types)."""
import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onyx

FLOAT8 = [
    (TensorProto.FLOAT8E4M3FN, ml_dtypes.float8_e4m3fn),
    (TensorProto.FLOAT8E4M3FNUZ, ml_dtypes.float8_e4m3fnuz),
    (TensorProto.FLOAT8E5M2, ml_dtypes.float8_e5m2),
    (TensorProto.FLOAT8E5M2FNUZ, ml_dtypes.float8_e5m2fnuz),
]
PACKED = [
    (TensorProto.INT4, ml_dtypes.int4),
    (TensorProto.UINT4, ml_dtypes.uint4),
    (TensorProto.INT2, ml_dtypes.int2),
    (TensorProto.UINT2, ml_dtypes.uint2),
    (TensorProto.FLOAT4E2M1, ml_dtypes.float4_e2m1fn),
]


def one_node(op, in_type, out_type, shape, opset=25, **attrs):
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", in_type, shape)],
                              [helper.make_tensor_value_info("y", out_type, shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 11
    return model.SerializeToString()


def run(module, model, x):
    return module.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]


def bits(a):
    return np.asarray(a).view(np.uint8)


@pytest.mark.parametrize("code,dtype", FLOAT8)
def test_cast_float_to_float8_matches_ml_dtypes(code, dtype):
    rng = np.random.default_rng(7)
    finfo = ml_dtypes.finfo(dtype)
    x = np.concatenate([rng.uniform(-float(finfo.max), float(finfo.max), 200),
                        rng.normal(0, 1e-2, 50), [0.0, -0.0, np.nan, np.inf, -np.inf, 1e9]]).astype(np.float32)
    y = run(onyx, one_node("Cast", TensorProto.FLOAT, code, [len(x)], to=code), x)
    assert y.dtype == np.dtype(dtype)
    # Cast's default saturates: ml_dtypes' astype after clipping to the format's range.
    expected = np.clip(x, float(finfo.min), float(finfo.max)).astype(dtype)
    np.testing.assert_array_equal(bits(y), bits(expected))


@pytest.mark.parametrize("code,dtype", FLOAT8)
def test_float8_input_round_trip(code, dtype):
    every = np.arange(256, dtype=np.uint8).view(dtype)
    y = run(onyx, one_node("Cast", code, TensorProto.FLOAT, [256], to=TensorProto.FLOAT), every)
    expected = every.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(expected))
    np.testing.assert_array_equal(y[~np.isnan(y)], expected[~np.isnan(expected)])


@pytest.mark.parametrize("code,dtype", PACKED)
@pytest.mark.parametrize("n", [1, 5, 8])
def test_packed_identity_keeps_every_element(code, dtype, n):
    info = ml_dtypes.finfo(dtype) if dtype == ml_dtypes.float4_e2m1fn else ml_dtypes.iinfo(dtype)
    x = np.linspace(float(info.min), float(info.max), n).astype(dtype)
    y = run(onyx, one_node("Identity", code, code, [n]), x)
    assert y.dtype == np.dtype(dtype) and y.shape == (n,)
    np.testing.assert_array_equal(bits(y), bits(x))


@pytest.mark.parametrize("code,dtype", PACKED[:4])
def test_int_to_packed_cast_wraps(code, dtype):
    # (onnxruntime 1.30's Python cannot return these types: "No corresponding Numpy type")
    x = np.arange(-6, 7, dtype=np.int32)
    ours = run(onyx, one_node("Cast", TensorProto.INT32, code, [len(x)], opset=21, to=code), x)
    bits_per = 2 if dtype in (ml_dtypes.int2, ml_dtypes.uint2) else 4
    low = x & ((1 << bits_per) - 1)  # integer narrowing keeps the low bits
    signed = dtype in (ml_dtypes.int4, ml_dtypes.int2)
    expected = np.where(signed & (low >= (1 << (bits_per - 1))), low - (1 << bits_per), low)
    np.testing.assert_array_equal(ours.astype(np.int32), expected)


def test_uint8_codes_are_accepted_for_a_narrow_input():
    codes = np.array([0x38, 0x40, 0xB8], np.uint8)  # e4m3fn: 1.0, 2.0, -1.0
    y = run(onyx, one_node("Cast", TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT, [3], to=TensorProto.FLOAT), codes)
    np.testing.assert_array_equal(y, np.array([1.0, 2.0, -1.0], np.float32))


def test_packed_transpose_is_refused_by_name():
    node = helper.make_node("Transpose", ["x"], ["y"], perm=[1, 0])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.INT4, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.INT4, [3, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    model.ir_version = 11
    with pytest.raises(Exception, match="int4"):
        run(onyx, model.SerializeToString(), np.zeros((2, 3), ml_dtypes.int4))
