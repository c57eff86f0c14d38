"""Fuzzing the readers of files a user may be handed: the training checkpoint and ONNX
Runtime's LoRA adapter format. Mutated bytes (flips, cuts, insertions, overwrites of the
offsets) must give onyx's own errors or a value, never another exception or a crash."""
import os

import numpy as np
import pytest

import onyx

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402


def good_checkpoint(tmp):
    """A checkpoint with parameters that train and one that does not, AdamW moments after a
    step, and a property of each kind, from generate_artifacts on a tiny linear model."""
    from onnx import TensorProto, helper, numpy_helper
    from onyx.training import api, artifacts
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    b = numpy_helper.from_array(np.ones(3, np.float32), "b")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["y"])],
                              "linear", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 3])], [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    artifacts.generate_artifacts(model, requires_grad=["w"], frozen_params=["b"], loss=artifacts.LossType.MSELoss,
                                 optimizer=artifacts.OptimType.AdamW, artifact_directory=tmp)
    state = api.CheckpointState.load_checkpoint(os.path.join(tmp, "checkpoint"))
    module = api.Module(os.path.join(tmp, "training_model.onnx"), state)
    optimizer = api.Optimizer(os.path.join(tmp, "optimizer_model.onnx"), module)
    module(np.ones((4, 2), np.float32), np.zeros((4, 3), np.float32))
    optimizer.step()
    state.properties.update({"epoch": 1, "lr": 0.5, "note": "seed"})
    path = os.path.join(tmp, "ckpt")
    api.CheckpointState.save_checkpoint(state, path, include_optimizer_state=True)
    return open(path, "rb").read()


def good_adapter(tmp):
    fmt = onyx.AdapterFormat()
    fmt.set_parameters({"a": onyx.OrtValue.ortvalue_from_numpy(np.ones((4, 2), np.float32)),
                        "ids": onyx.OrtValue.ortvalue_from_numpy(np.arange(3, dtype=np.int64))})
    path = os.path.join(tmp, "a.onnx_adapter")
    fmt.export_adapter(path)
    return open(path, "rb").read()


def mutated(seed_bytes):
    n = len(seed_bytes)
    edit = st.one_of(
        st.tuples(st.just("flip"), st.integers(0, n - 1), st.integers(1, 255)),
        st.tuples(st.just("cut"), st.integers(0, n), st.just(0)),
        st.tuples(st.just("insert"), st.integers(0, n), st.integers(0, 255)),
        st.tuples(st.just("word"), st.integers(0, max(0, n - 4)), st.integers(0, 2**32 - 1)))
    return st.lists(edit, min_size=1, max_size=4)


def apply(data, edits):
    b = bytearray(data)
    for kind, at, value in edits:
        at = min(at, len(b))
        if kind == "flip" and at < len(b):
            b[at] ^= value
        elif kind == "cut":
            del b[at:]
        elif kind == "insert":
            b[at:at] = bytes([value])
        elif kind == "word" and at + 4 <= len(b):
            b[at:at + 4] = value.to_bytes(4, "little")
    return bytes(b)


# derandomize: the same examples every run (CI stays deterministic); a longer local search is
# ONYX_FUZZ_EXAMPLES=20000 with derandomize off.
FUZZ = settings(max_examples=int(os.environ.get("ONYX_FUZZ_EXAMPLES", 300)), deadline=None,
                derandomize="ONYX_FUZZ_EXAMPLES" not in os.environ, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("seeds"))
    return {"checkpoint": good_checkpoint(tmp), "adapter": good_adapter(tmp), "tmp": tmp}


@FUZZ
@given(data=st.data())
def test_checkpoint_reader(seeds, data):
    raw = apply(seeds["checkpoint"], data.draw(mutated(seeds["checkpoint"])))
    path = os.path.join(seeds["tmp"], "fuzzed_ckpt")
    with open(path, "wb") as f:
        f.write(raw)
    try:
        state = onyx.training.api.CheckpointState.load_checkpoint(path)
    except RuntimeError:  # onyx's errors (InvalidProtobuf, ...) are RuntimeErrors
        return
    for name, p in state.parameters:
        assert isinstance(p.data, np.ndarray)


@FUZZ
@given(data=st.data())
def test_adapter_reader(seeds, data):
    raw = apply(seeds["adapter"], data.draw(mutated(seeds["adapter"])))
    path = os.path.join(seeds["tmp"], "fuzzed_adapter")
    with open(path, "wb") as f:
        f.write(raw)
    try:
        fmt = onyx.AdapterFormat.read_adapter(path)
    except RuntimeError:
        return
    for value in fmt.get_parameters().values():
        value.numpy()


def test_adapter_names_that_are_not_utf8_are_refused(seeds, tmp_path):
    raw = bytearray(seeds["adapter"])
    at = raw.index(b"ids")  # a parameter's name, found by the fuzzer to reach a UnicodeDecodeError
    raw[at] = 0xE9
    (tmp_path / "bad").write_bytes(bytes(raw))
    with pytest.raises(onyx.InvalidProtobuf, match="not UTF-8"):
        onyx.AdapterFormat.read_adapter(str(tmp_path / "bad"))
