"""Values across the API: every dtype, strings, sequences, optionals, memory ownership."""
import gc
import os
import sys

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onyx
from conftest import data_case, make_model, tensor_info, unary_model

DTYPES = [
    (TensorProto.FLOAT, np.float32, "float"),
    (TensorProto.DOUBLE, np.float64, "double"),
    (TensorProto.FLOAT16, np.float16, "float16"),
    (TensorProto.INT8, np.int8, "int8"),
    (TensorProto.INT16, np.int16, "int16"),
    (TensorProto.INT32, np.int32, "int32"),
    (TensorProto.INT64, np.int64, "int64"),
    (TensorProto.UINT8, np.uint8, "uint8"),
    (TensorProto.UINT16, np.uint16, "uint16"),
    (TensorProto.UINT32, np.uint32, "uint32"),
    (TensorProto.UINT64, np.uint64, "uint64"),
    (TensorProto.BOOL, np.bool_, "bool"),
    (TensorProto.COMPLEX64, np.complex64, "complex64"),
    (TensorProto.COMPLEX128, np.complex128, "complex128"),
]


def sample(np_type, shape=(2, 3)):
    n = int(np.prod(shape))
    if np_type is np.bool_:
        return (np.arange(n) % 3 == 0).reshape(shape)
    if np.issubdtype(np_type, np.complexfloating):
        return (np.arange(n) + 1j * np.arange(n)[::-1]).astype(np_type).reshape(shape)
    return (np.arange(n) * 3 % 7).astype(np_type).reshape(shape)


@pytest.mark.parametrize("elem,np_type,name", DTYPES, ids=[d[2] for d in DTYPES])
def test_dtype_round_trip(elem, np_type, name):
    sess = onyx.InferenceSession(unary_model("Identity", elem, [2, 3]))
    assert sess.get_inputs()[0].type == f"tensor({name})"
    x = sample(np_type)
    (y,) = sess.run(None, {"x": x})
    assert y.dtype == np.dtype(np_type) and y.shape == (2, 3)
    np.testing.assert_array_equal(y, x)
    assert not np.shares_memory(x, y)  # a pass-through output is a copy, never a view of the feed


@pytest.mark.parametrize("elem,np_type,name", [d for d in DTYPES if d[2] not in ("bool", "float16", "complex64",
                                                                                  "complex128")],
                         ids=[d[2] for d in DTYPES if d[2] not in ("bool", "float16", "complex64", "complex128")])
def test_computed_output_dtype(elem, np_type, name):
    # Add computes a fresh output: it comes back as an array that keeps onyx's buffer alive.
    model = make_model([helper.make_node("Add", ["x", "x"], ["y"])], [tensor_info("x", elem, [2, 3])],
                       [tensor_info("y", elem, [2, 3])], opset=14)
    sess = onyx.InferenceSession(model)
    x = sample(np_type)
    (y,) = sess.run(None, {"x": x})
    assert y.dtype == np.dtype(np_type)
    np.testing.assert_array_equal(y, x + x)


def test_float16_compute():
    sess = onyx.InferenceSession(unary_model("Neg", TensorProto.FLOAT16, [4]))
    x = np.array([0.5, -1.25, 65504, 1e-3], np.float16)
    (y,) = sess.run(None, {"x": x})
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y, -x)


def test_bfloat16_as_uint16_bits():
    sess = onyx.InferenceSession(unary_model("Identity", TensorProto.BFLOAT16, [3]))
    assert sess.get_inputs()[0].type == "tensor(bfloat16)"
    bits = np.array([0x3F80, 0xC000, 0x0000], np.uint16)  # 1.0, -2.0, 0.0
    (y,) = sess.run(None, {"x": bits})
    assert y.dtype == np.uint16
    np.testing.assert_array_equal(y, bits)


@pytest.mark.parametrize("make", [
    lambda: np.array([["a", "bé"], ["", "日本"]], dtype=object),
    lambda: np.array([["a", "bé"], ["", "日本"]]),  # <U2
    lambda: np.array([[b"a", "bé".encode()], [b"", "日本".encode()]], dtype=object),
])
def test_string_tensors(make):
    sess = onyx.InferenceSession(unary_model("Identity", TensorProto.STRING, [2, 2]))
    (y,) = sess.run(None, {"x": make()})
    assert y.dtype == object and y.shape == (2, 2)
    assert y.tolist() == [["a", "bé"], ["", "日本"]]


def test_string_output_from_cast():
    model = make_model([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.STRING)],
                       [tensor_info("x", TensorProto.INT64, [3])], [tensor_info("y", TensorProto.STRING, [3])])
    (y,) = onyx.InferenceSession(model).run(None, {"x": np.array([1, -20, 300], np.int64)})
    assert y.dtype == object and y.tolist() == ["1", "-20", "300"]


def test_scalar_and_empty():
    sess = onyx.InferenceSession(unary_model("Neg", TensorProto.FLOAT, None))
    (y,) = sess.run(None, {"x": np.float32(2.5)})
    assert y.shape == () and y == -2.5
    (y,) = sess.run(None, {"x": np.zeros((0, 3), np.float32)})
    assert y.shape == (0, 3) and y.dtype == np.float32


def test_layouts_that_need_a_copy():
    sess = onyx.InferenceSession(unary_model("Neg", TensorProto.FLOAT, None))
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    for x in (base.T, base[:, ::2], base[::2], base.astype(">f4")):
        (y,) = sess.run(None, {"x": x})
        np.testing.assert_array_equal(y, -np.asarray(x, np.float32))
    unaligned = np.frombuffer(b"\0" + np.arange(4, dtype=np.float32).tobytes(), np.float32, 4, 1)
    assert not unaligned.flags.aligned
    (y,) = sess.run(None, {"x": unaligned})
    np.testing.assert_array_equal(y, -np.arange(4, dtype=np.float32))
    readonly = np.arange(3, dtype=np.float32)
    readonly.flags.writeable = False
    (y,) = sess.run(None, {"x": readonly})
    np.testing.assert_array_equal(y, -readonly)


def test_python_objects_as_feeds():
    sess = onyx.InferenceSession(unary_model("Neg", TensorProto.DOUBLE, None))
    (y,) = sess.run(None, {"x": [1.0, 2.0]})  # numpy.asarray: float64
    np.testing.assert_array_equal(y, [-1.0, -2.0])
    (y,) = sess.run(None, {"x": 3.0})
    assert y == -3.0


def test_feeds_are_not_leaked_and_outputs_outlive_the_session():
    sess = onyx.InferenceSession(unary_model("Neg", TensorProto.FLOAT, [1000]))
    x = np.ones(1000, np.float32)
    before = sys.getrefcount(x)
    outs = [sess.run(None, {"x": x})[0] for _ in range(10)]
    assert sys.getrefcount(x) == before
    del sess
    gc.collect()
    for y in outs:
        assert y.flags.writeable and y.flags.c_contiguous
        np.testing.assert_array_equal(y, -x)
    outs[0][:] = 5  # outputs are independent
    np.testing.assert_array_equal(outs[1], -x)


def test_outputs_never_alias_constants():
    value = np.array([1, 2, 3], np.float32)
    model = make_model([helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(value)),
                        helper.make_node("Identity", ["x"], ["y"])],
                       [tensor_info("x", TensorProto.FLOAT, [1])],
                       [tensor_info("c", TensorProto.FLOAT, [3]), tensor_info("y", TensorProto.FLOAT, [1])])
    sess = onyx.InferenceSession(model)
    c, _ = sess.run(None, {"x": np.zeros(1, np.float32)})
    c[:] = 100
    c2, _ = sess.run(None, {"x": np.zeros(1, np.float32)})
    np.testing.assert_array_equal(c2, value)


def test_sequence_output_and_input():
    model = make_model([helper.make_node("SequenceConstruct", ["a", "b"], ["s"])],
                       [tensor_info("a", TensorProto.FLOAT, [2]), tensor_info("b", TensorProto.FLOAT, [3])],
                       [helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)])
    sess = onyx.InferenceSession(model)
    assert sess.get_outputs()[0].type == "seq(tensor(float))"
    (s,) = sess.run(None, {"a": np.ones(2, np.float32), "b": np.zeros(3, np.float32)})
    assert isinstance(s, list) and len(s) == 2
    np.testing.assert_array_equal(s[0], np.ones(2, np.float32))
    np.testing.assert_array_equal(s[1], np.zeros(3, np.float32))

    model = make_model([helper.make_node("SequenceLength", ["s"], ["n"]), helper.make_node("Identity", ["s"], ["t"])],
                       [helper.make_tensor_sequence_value_info("s", TensorProto.INT64, None)],
                       [tensor_info("n", TensorProto.INT64, []),
                        helper.make_tensor_sequence_value_info("t", TensorProto.INT64, None)])
    sess = onyx.InferenceSession(model)
    items = [np.arange(3, dtype=np.int64), np.arange(5, dtype=np.int64).reshape(1, 5)]
    n, t = sess.run(None, {"s": items})
    assert n == 2
    assert [a.tolist() for a in t] == [a.tolist() for a in items]
    n, t = sess.run(None, {"s": []})
    assert n == 0 and t == []
    with pytest.raises(onyx.InvalidArgument, match="seq"):
        sess.run(None, {"s": np.zeros(3, np.int64)})
    with pytest.raises(onyx.InvalidArgument, match="tensor\\(int64\\)"):
        sess.run(None, {"s": [np.zeros(3, np.float32)]})


def test_optional_none_and_value():
    sess = onyx.InferenceSession(os.path.join(data_case("node/test_identity_opt"), "model.onnx"))
    (y,) = sess.run(None, {"opt_in": None})
    assert y is None
    items = [np.ones(5, np.float32), np.zeros(5, np.float32)]
    (y,) = sess.run(None, {"opt_in": items})
    assert [a.tolist() for a in y] == [a.tolist() for a in items]
    sess = onyx.InferenceSession(os.path.join(data_case("node/test_optional_has_element_empty"), "model.onnx"))
    (has,) = sess.run(None, {sess.get_inputs()[0].name: None})
    assert has.dtype == np.bool_ and not has
