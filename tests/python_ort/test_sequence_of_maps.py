"""ZipMap's output, a sequence of maps, through the Python API: onyx must hand back what
onnxruntime 1.30 hands back (a list of dicts, keyed by int64 or by string, float values) and
describe the output the same way (NodeArg.type)."""
import numpy as np
import pytest
from onnx import TensorProto, TypeProto, helper


def zipmap_model(labels):
    """probabilities float[N, len(labels)] -> ZipMap -> seq(map(key, float))."""
    by_string = isinstance(labels[0], str)
    attrs = {"classlabels_strings" if by_string else "classlabels_int64s": labels}
    map_type = TypeProto()
    map_type.map_type.key_type = TensorProto.STRING if by_string else TensorProto.INT64
    map_type.map_type.value_type.CopyFrom(helper.make_tensor_type_proto(TensorProto.FLOAT, []))
    graph = helper.make_graph(
        [helper.make_node("ZipMap", ["p"], ["maps"], domain="ai.onnx.ml", **attrs)], "zipmap",
        [helper.make_tensor_value_info("p", TensorProto.FLOAT, ["N", len(labels)])],
        [helper.make_value_info("maps", helper.make_sequence_type_proto(map_type))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("ai.onnx.ml", 1)])
    model.ir_version = 8
    return model.SerializeToString()


@pytest.mark.parametrize("labels", [[3, 1, 7], ["cat", "dog"]], ids=["int64_keys", "string_keys"])
def test_zipmap_output_is_a_list_of_dicts(rt, labels):
    import onnxruntime

    model = zipmap_model(labels)
    p = np.random.default_rng(5).random((4, len(labels)), dtype=np.float32)
    got = rt.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"p": p})[0]
    want = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"p": p})[0]
    assert isinstance(got, list) and len(got) == 4
    assert got == want  # same keys, same key types, same float values
    for row, m, ref in zip(p, got, want):
        assert isinstance(m, dict) and list(m) == list(ref) == sorted(labels)  # ORT's order: keys ascending
        assert [m[k] for k in labels] == pytest.approx(row.tolist())


@pytest.mark.parametrize("labels", [[2, 1, 2], ["b", "a", "b", "B"]], ids=["int64_keys", "string_keys"])
def test_a_repeated_label_keeps_its_last_column(rt, labels):
    import onnxruntime

    model = zipmap_model(labels)
    p = np.arange(len(labels), dtype=np.float32)[None]
    got = rt.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"p": p})[0]
    want = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"p": p})[0]
    assert [list(m.items()) for m in got] == [list(m.items()) for m in want]
    last = {k: float(j) for j, k in enumerate(labels)}
    assert got == [dict(sorted(last.items()))]


@pytest.mark.parametrize("labels", [[3, 1, 7], ["cat", "dog"]], ids=["int64_keys", "string_keys"])
def test_zipmap_output_is_described_as_ort_describes_it(rt, labels):
    import onnxruntime

    model = zipmap_model(labels)
    ours = rt.InferenceSession(model, providers=["CPUExecutionProvider"]).get_outputs()[0]
    ref = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).get_outputs()[0]
    assert (ours.name, ours.type, ours.shape) == (ref.name, ref.type, ref.shape)


def test_empty_batch_gives_an_empty_list(rt):
    model = zipmap_model([0, 1])
    got = rt.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, {"p": np.zeros((0, 2), np.float32)})[0]
    assert got == []


def cast_map_model():
    """CastMap of a map(int64, float) input to a dense float tensor."""
    map_type = TypeProto()
    map_type.map_type.key_type = TensorProto.INT64
    map_type.map_type.value_type.tensor_type.elem_type = TensorProto.FLOAT
    node = helper.make_node("CastMap", ["m"], ["y"], domain="ai.onnx.ml", map_form="SPARSE", max_map=4)
    graph = helper.make_graph([node], "g", [helper.make_value_info("m", map_type)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)])
    model.ir_version = 8
    return model.SerializeToString()


@pytest.mark.parametrize("bad_key", ["a", 1.5])
def test_a_map_key_of_the_wrong_kind_is_a_runtime_error(rt, bad_key):
    session = rt.InferenceSession(cast_map_model(), providers=["CPUExecutionProvider"])
    good = {0: 1.0, 2: 3.0}
    np.testing.assert_allclose(session.run(None, {"m": good})[0].reshape(-1), [1.0, 0.0, 3.0, 0.0])
    with pytest.raises(RuntimeError, match="Unexpected key type"):
        session.run(None, {"m": {**good, bad_key: 2.0}})
