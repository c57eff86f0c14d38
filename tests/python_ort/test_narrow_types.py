"""The narrow element types (float8, float4e2m1, int4/uint4, int2/uint2) through onyx's Python
API, as numpy users hold them: ml_dtypes arrays in and out, one element per byte in numpy and
packed in the tensor. Values are checked against ml_dtypes' own conversions and the spec's
rules (onnxruntime 1.30's Python cannot return these types)."""
import os
import subprocess

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


def graph_model(nodes, inputs, outputs, initializers=(), opset=25):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 11
    return model.SerializeToString()


def packed_values(dtype, shape, seed=0):
    """Every code of the type in turn (seeded shuffle), as an ml_dtypes array of `shape`."""
    bits_per = 2 if dtype in (ml_dtypes.int2, ml_dtypes.uint2) else 4
    codes = np.random.default_rng(seed).integers(0, 1 << bits_per, size=shape).astype(np.uint8)
    return codes_to_values(codes, dtype)


def codes_to_values(codes, dtype):
    if dtype == ml_dtypes.float4_e2m1fn:
        return codes.view(ml_dtypes.float4_e2m1fn)
    bits_per = 2 if dtype in (ml_dtypes.int2, ml_dtypes.uint2) else 4
    signed = dtype in (ml_dtypes.int4, ml_dtypes.int2)
    v = codes.astype(np.int16)
    if signed:
        v = np.where(v >= (1 << (bits_per - 1)), v - (1 << bits_per), v)
    return v.astype(dtype)


@pytest.mark.parametrize("code,dtype", PACKED)
@pytest.mark.parametrize("shape,perm", [((3, 5), (1, 0)), ((2, 3, 5), (2, 0, 1)), ((1, 7), (1, 0))])
def test_packed_transpose(code, dtype, shape, perm):
    x = packed_values(dtype, shape)
    out_shape = [shape[p] for p in perm]
    model = graph_model([helper.make_node("Transpose", ["x"], ["y"], perm=list(perm))],
                        [helper.make_tensor_value_info("x", code, list(shape))],
                        [helper.make_tensor_value_info("y", code, out_shape)])
    y = run(onyx, model, x)
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(bits(y), bits(np.transpose(x, perm)))


@pytest.mark.parametrize("code,dtype", PACKED)
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap"])
def test_packed_pad(code, dtype, mode):
    x = packed_values(dtype, (3, 5), seed=1)
    pads = [1, 2, 2, 1]  # begins of both axes, then ends
    fill = x.reshape(-1)[:1].reshape(())  # a value of the type itself
    inits = [helper.make_tensor("pads", TensorProto.INT64, [4], pads)]
    inputs = ["x", "pads"]
    if mode == "constant":
        inits.append(onnx.numpy_helper.from_array(fill, "value"))
        inputs.append("value")
    model = graph_model([helper.make_node("Pad", inputs, ["y"], mode=mode)],
                        [helper.make_tensor_value_info("x", code, [3, 5])],
                        [helper.make_tensor_value_info("y", code, [6, 8])], inits)
    y = run(onyx, model, x)
    numpy_mode = {"constant": "constant", "edge": "edge", "reflect": "reflect", "wrap": "wrap"}[mode]
    wide = x.astype(np.float32)
    kw = {"constant_values": float(fill.astype(np.float32))} if mode == "constant" else {}
    expected = np.pad(wide, ((1, 2), (2, 1)), mode=numpy_mode, **kw).astype(dtype)
    np.testing.assert_array_equal(bits(y), bits(expected))


@pytest.mark.parametrize("code,dtype", PACKED)
def test_packed_constant_of_shape(code, dtype):
    value = packed_values(dtype, (1,), seed=2)
    model = graph_model([helper.make_node("ConstantOfShape", ["s"], ["y"], value=onnx.numpy_helper.from_array(value))],
                        [helper.make_tensor_value_info("s", TensorProto.INT64, [2])],
                        [helper.make_tensor_value_info("y", code, None)])
    y = onyx.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"s": np.array([3, 3], np.int64)})[0]
    np.testing.assert_array_equal(bits(y), bits(np.full((3, 3), value[0], dtype=dtype)))


@pytest.mark.parametrize("code,dtype", PACKED)
def test_packed_reshaping_ops(code, dtype):
    x = packed_values(dtype, (2, 1, 3), seed=3)
    nodes = [helper.make_node("Reshape", ["x", "to"], ["r"]), helper.make_node("Squeeze", ["x", "one"], ["s"]),
             helper.make_node("Unsqueeze", ["x", "zero"], ["u"]), helper.make_node("Flatten", ["x"], ["f"], axis=2),
             helper.make_node("Shape", ["x"], ["shape"]), helper.make_node("Size", ["x"], ["size"])]
    inits = [helper.make_tensor("to", TensorProto.INT64, [2], [3, 2]), helper.make_tensor("one", TensorProto.INT64, [1], [1]),
             helper.make_tensor("zero", TensorProto.INT64, [1], [0])]
    outs = [helper.make_tensor_value_info(n, code, None) for n in "rsuf"] + [
        helper.make_tensor_value_info("shape", TensorProto.INT64, None), helper.make_tensor_value_info("size", TensorProto.INT64, None)]
    model = graph_model(nodes, [helper.make_tensor_value_info("x", code, [2, 1, 3])], outs, inits)
    r, s, u, f, shape, size = onyx.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x})
    for got, expected in [(r, x.reshape(3, 2)), (s, x.reshape(2, 3)), (u, x.reshape(1, 2, 1, 3)), (f, x.reshape(2, 3))]:
        assert got.shape == expected.shape
        np.testing.assert_array_equal(bits(got), bits(expected))
    assert shape.tolist() == [2, 1, 3] and int(size) == 6


@pytest.mark.parametrize("source,target", [(ml_dtypes.int4, ml_dtypes.uint4), (ml_dtypes.uint4, ml_dtypes.float4_e2m1fn),
                                           (ml_dtypes.int2, ml_dtypes.uint2), (ml_dtypes.float8_e4m3fn, np.int8)])
def test_bit_cast_narrow(source, target):
    codes = {ml_dtypes.int4: TensorProto.INT4, ml_dtypes.uint4: TensorProto.UINT4, ml_dtypes.int2: TensorProto.INT2,
             ml_dtypes.uint2: TensorProto.UINT2, ml_dtypes.float4_e2m1fn: TensorProto.FLOAT4E2M1,
             ml_dtypes.float8_e4m3fn: TensorProto.FLOAT8E4M3FN, np.int8: TensorProto.INT8}
    bits_per = 8 if source == ml_dtypes.float8_e4m3fn else 2 if source == ml_dtypes.int2 else 4
    raw = np.arange(1 << bits_per, dtype=np.uint8)
    x = raw.view(source) if bits_per == 8 else codes_to_values(raw, source)
    model = graph_model([helper.make_node("BitCast", ["x"], ["y"], to=codes[target])],
                        [helper.make_tensor_value_info("x", codes[source], [len(raw)])],
                        [helper.make_tensor_value_info("y", codes[target], [len(raw)])], opset=26)
    y = run(onyx, model, x)
    expected = raw.view(target) if bits_per == 8 else codes_to_values(raw, target)
    np.testing.assert_array_equal(bits(y), bits(expected))


def int64s(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


# Ops beyond the spec's packed type lists that move elements through onyx's shared copies:
# they keep every element (an offset inside a byte included) rather than refuse.
MOVERS = {
    "Gather": ([helper.make_node("Gather", ["x", "i"], ["y"])], [int64s("i", [0, 3, 4])], lambda x: x[[0, 3, 4]]),
    "Concat": ([helper.make_node("Concat", ["x", "x"], ["y"], axis=0)], [], lambda x: np.concatenate([x, x])),
    "Slice": ([helper.make_node("Slice", ["x", "b", "e"], ["y"])], [int64s("b", [1]), int64s("e", [4])], lambda x: x[1:4]),
    "Expand": ([helper.make_node("Expand", ["x", "s"], ["y"])], [int64s("s", [2, 5])], lambda x: np.stack([x, x])),
    "Tile": ([helper.make_node("Tile", ["x", "r"], ["y"])], [int64s("r", [3])], lambda x: np.tile(x, 3)),
    "Split": ([helper.make_node("Split", ["x", "sp"], ["y", "z"], axis=0)], [int64s("sp", [3, 2])], lambda x: x[:3]),
}


@pytest.mark.parametrize("code,dtype", PACKED)
@pytest.mark.parametrize("op", sorted(MOVERS))
def test_packed_elements_moved_by_other_ops(code, dtype, op):
    nodes, inits, expected = MOVERS[op]
    x = packed_values(dtype, (5,), seed=4)
    outputs = [helper.make_tensor_value_info(o, code, None) for o in nodes[0].output]
    y = onyx.InferenceSession(graph_model(nodes, [helper.make_tensor_value_info("x", code, [5])], outputs, inits),
                              providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_array_equal(bits(y), bits(expected(x)))


def test_packed_gather_elements_is_refused_by_name():
    # An op whose kernel addresses elements by word: a clear refusal, never wrong elements.
    node = helper.make_node("GatherElements", ["x", "i"], ["y"])
    model = graph_model([node], [helper.make_tensor_value_info("x", TensorProto.INT4, [4])],
                        [helper.make_tensor_value_info("y", TensorProto.INT4, [2])], [int64s("i", [0, 3])])
    with pytest.raises(Exception, match="int4"):
        run(onyx, model, np.zeros(4, ml_dtypes.int4))


@pytest.mark.parametrize("code,dtype", FLOAT8)
def test_double_to_float8_rounds_once(code, dtype):
    # Just above and below each midpoint between neighbouring codes: through float32 these
    # would round to the midpoint first and then to the even code, one code off half the time.
    codes = np.arange(256, dtype=np.uint8).view(dtype)
    values = np.unique(codes.astype(np.float64)[np.isfinite(codes.astype(np.float64))])
    values = values[~np.signbit(values)]
    low, high = values[:-1], values[1:]
    mid, offset = (low + high) / 2, (high - low) * 2.0 ** -30
    x = np.concatenate([mid + offset, mid - offset])
    expected = np.concatenate([high, low]).astype(dtype)
    cast = run(onyx, one_node("Cast", TensorProto.DOUBLE, code, [len(x)], to=code), x)
    np.testing.assert_array_equal(bits(cast), bits(expected))
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [len(x)])],
                              [helper.make_tensor_value_info("y", code, [len(x)])],
                              initializer=[helper.make_tensor("s", TensorProto.DOUBLE, [], [1.0]),
                                           helper.make_tensor("z", code, [], [0.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    np.testing.assert_array_equal(bits(run(onyx, model.SerializeToString(), x)), bits(expected))


ONYX_BIN = os.environ.get("ONYX_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "build", "onyx"))


@pytest.mark.skipif(not os.path.exists(ONYX_BIN), reason="no onyx CLI")
@pytest.mark.parametrize("code,dtype", FLOAT8[:1] + PACKED)
@pytest.mark.parametrize("saved_as", ["ml_dtypes", "uint8_codes"])
def test_cli_npy_of_narrow_types(code, dtype, saved_as, tmp_path):
    # numpy saves ml_dtypes arrays as raw V1 elements; `onyx run` reads those (or uint8 codes)
    # as the declared type and writes outputs the same way.
    x = packed_values(dtype, (3, 5), seed=5) if dtype in [d for _, d in PACKED] else \
        np.arange(15, dtype=np.uint8).reshape(3, 5).view(dtype)
    model = graph_model([helper.make_node("Transpose", ["x"], ["y"], perm=[1, 0])],
                        [helper.make_tensor_value_info("x", code, [3, 5])],
                        [helper.make_tensor_value_info("y", code, [5, 3])])
    (tmp_path / "m.onnx").write_bytes(model)
    (tmp_path / "in").mkdir()
    np.save(tmp_path / "in" / "x.npy", x if saved_as == "ml_dtypes" else bits(x))
    proc = subprocess.run([ONYX_BIN, "run", str(tmp_path / "m.onnx"), "--inputs-dir", str(tmp_path / "in"),
                           "--outputs-dir", str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    y = np.load(tmp_path / "out" / "output_0.npy").view(dtype)
    np.testing.assert_array_equal(bits(y), bits(np.transpose(x)))


FLOAT6 = [(TensorProto.FLOAT6E2M3, ml_dtypes.float6_e2m3fn), (TensorProto.FLOAT6E3M2, ml_dtypes.float6_e3m2fn)]


@pytest.mark.parametrize("code,dtype", FLOAT6)
def test_cast_float_to_float6_matches_ml_dtypes(code, dtype):
    # Both formats have no NaN or infinity: they saturate, and NaN becomes -0, as ml_dtypes does.
    rng = np.random.default_rng(11)
    top = float(ml_dtypes.finfo(dtype).max)
    x = np.concatenate([rng.uniform(-1.5 * top, 1.5 * top, 300), rng.normal(0, 0.1, 100),
                        [0.0, -0.0, np.nan, np.inf, -np.inf, 1e9, -1e9]]).astype(np.float32)
    y = run(onyx, one_node("Cast", TensorProto.FLOAT, code, [len(x)], opset=28, to=code), x)
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(bits(y), bits(x.astype(dtype)))


@pytest.mark.parametrize("code,dtype", FLOAT6)
def test_float6_every_code_to_float(code, dtype):
    every = np.arange(64, dtype=np.uint8).view(dtype)
    y = run(onyx, one_node("Cast", code, TensorProto.FLOAT, [64], opset=28, to=TensorProto.FLOAT), every)
    np.testing.assert_array_equal(y, every.astype(np.float32))


@pytest.mark.parametrize("code,dtype", FLOAT6)
def test_double_to_float6_rounds_once(code, dtype):
    values = np.unique(np.arange(32, dtype=np.uint8).view(dtype).astype(np.float64))
    low, high = values[:-1], values[1:]
    mid, offset = (low + high) / 2, (high - low) * 2.0 ** -30
    x = np.concatenate([mid + offset, mid - offset])
    y = run(onyx, one_node("Cast", TensorProto.DOUBLE, code, [len(x)], opset=28, to=code), x)
    np.testing.assert_array_equal(bits(y), bits(np.concatenate([high, low]).astype(dtype)))


@pytest.mark.parametrize("code,dtype", FLOAT6)
@pytest.mark.parametrize("n", [1, 3, 4, 5, 8, 13])
def test_float6_packed_four_in_three_bytes(code, dtype, n):
    # Element i sits at bits 6i..6i+5 of a little-endian stream, so most cross a byte: an
    # initializer in that form (numpy_helper's raw bytes) and in int32_data (one code an entry,
    # as onnx.helper writes it) must both read back, and Transpose must keep every element.
    codes = (np.arange(n, dtype=np.uint8) * 7 + 3) % 64
    x = codes.view(dtype).reshape(1, n)
    raw = onnx.numpy_helper.from_array(x, "raw")
    typed = helper.make_tensor("typed", code, [1, n], x.astype(np.float32).reshape(-1))
    assert len(raw.raw_data) == (6 * n + 7) // 8 and len(typed.int32_data) == n
    nodes = [helper.make_node("Transpose", ["raw"], ["a"], perm=[1, 0]), helper.make_node("Identity", ["typed"], ["b"])]
    outs = [helper.make_tensor_value_info("a", code, [n, 1]), helper.make_tensor_value_info("b", code, [1, n])]
    graph = helper.make_graph(nodes, "g", [], outs, initializer=[raw, typed])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 28)])
    model.ir_version = 13
    a, b = onyx.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {})
    np.testing.assert_array_equal(bits(a), bits(x.T))
    np.testing.assert_array_equal(bits(b), bits(x))


@pytest.mark.parametrize("code,dtype", FLOAT6)
def test_float6_quantize_dequantize(code, dtype):
    x = np.linspace(-3, 3, 25).astype(np.float32)
    scale = np.float32(0.5)
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]), helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"])]
    inits = [onnx.numpy_helper.from_array(np.array(scale), "s"), onnx.numpy_helper.from_array(np.zeros((), dtype), "z")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [25])],
                              [helper.make_tensor_value_info("q", code, [25]), helper.make_tensor_value_info("d", TensorProto.FLOAT, [25])],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 28)])
    model.ir_version = 13
    q, d = onyx.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    expected = (x / scale).astype(dtype)
    np.testing.assert_array_equal(bits(q), bits(expected))
    np.testing.assert_array_equal(d, expected.astype(np.float32) * scale)
