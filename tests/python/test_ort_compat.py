"""Smaller pieces of onnxruntime's Python API that code written for ORT reaches for: OrtValueVector
and the C-level run_with_ort_values, run_async, ort_config metadata, OrtValue initializers,
the profile's file layout, RuntimeError-based errors, build info, provider argument checks and
CUDA options onyx accepts without acting on."""
import json
import os
import threading
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onyx
from onyx.capi import onnxruntime_pybind11_state as C
from onyx.capi.onnxruntime_inference_collection import check_and_normalize_provider_args
from conftest import make_model, tensor_info

B = np.arange(6, dtype=np.float32).reshape(2, 3)


def neg_and_cast_model():
    """x float [3] -> y = -x (float) and z = int64(x)."""
    return make_model([helper.make_node("Neg", ["x"], ["y"]),
                       helper.make_node("Cast", ["x"], ["z"], to=TensorProto.INT64)],
                      [tensor_info("x", TensorProto.FLOAT, [3])],
                      [tensor_info("y", TensorProto.FLOAT, [3]), tensor_info("z", TensorProto.INT64, [3])])


def plus_b_model(b_tensor, **fields):
    """y = x + b, float [2,3], with b only an initializer (not a graph input)."""
    return make_model([helper.make_node("Add", ["x", "b"], ["y"])], [tensor_info("x", TensorProto.FLOAT, [2, 3])],
                      [tensor_info("y", TensorProto.FLOAT, [2, 3])], [b_tensor], **fields)


def ortvalue(array):
    return onyx.OrtValue.ortvalue_from_numpy(array)


# 1. OrtValueVector and the two run_with_ort_values orders

def test_ortvaluevector_exported():
    assert hasattr(C, "OrtValueVector")
    assert onyx.OrtValueVector is C.OrtValueVector


def test_c_level_run_with_ort_values_returns_vector():
    sess = onyx.InferenceSession(neg_and_cast_model())
    x = np.array([1.5, -2, 3], np.float32)
    # The C-level call takes the feeds first, then the output names, as ORT's does.
    got = sess._sess.run_with_ort_values({"x": ortvalue(x)}, ["y", "z"], onyx.RunOptions())
    assert isinstance(got, C.OrtValueVector)
    assert len(got) == 2
    np.testing.assert_array_equal(got[0].numpy(), -x)
    np.testing.assert_array_equal(got[1].numpy(), x.astype(np.int64))
    np.testing.assert_array_equal(got[-1].numpy(), got[1].numpy())
    np.testing.assert_array_equal(got[-2].numpy(), -x)
    for bad in (2, -3):
        with pytest.raises(IndexError):
            got[bad]
    items = list(got)
    assert len(items) == 2 and all(isinstance(v, onyx.OrtValue) for v in items)
    # element types are TensorProto's numbers
    assert got.element_type_at(0) == TensorProto.FLOAT
    assert got.element_type_at(1) == TensorProto.INT64


def test_python_level_run_with_ort_values_returns_list():
    sess = onyx.InferenceSession(neg_and_cast_model())
    x = np.array([4, 5, 6], np.float32)
    got = sess.run_with_ort_values(["z", "y"], {"x": ortvalue(x)})
    assert type(got) is list and len(got) == 2
    assert all(isinstance(v, onyx.OrtValue) for v in got)
    np.testing.assert_array_equal(got[0].numpy(), x.astype(np.int64))
    np.testing.assert_array_equal(got[1].numpy(), -x)


# 2. OrtValue extras

def test_ortvalue_size_and_self_references():
    v = ortvalue(np.zeros((3, 2), np.float32))
    assert v.tensor_size_in_bytes() == 24
    assert v._ortvalue is v
    assert v._get_c_value() is v


def test_is_dlpack_uint8_tensor():
    assert C.is_dlpack_uint8_tensor(ortvalue(np.zeros((3, 2), np.float32)).to_dlpack()) is False
    assert C.is_dlpack_uint8_tensor(ortvalue(np.arange(4, dtype=np.uint8)).to_dlpack()) is True
    with pytest.raises(TypeError):
        C.is_dlpack_uint8_tensor(3)


# 3. run_async

def run_async_and_wait(sess, feeds):
    done = threading.Event()
    seen = {}

    def callback(outputs, user_data, err):
        seen.update(outputs=outputs, user_data=user_data, err=err, thread=threading.get_ident())
        done.set()

    assert sess.run_async(None, feeds, callback, "token") is None
    assert done.wait(timeout=30), "the callback was never called"
    return seen


def test_run_async_calls_back_from_another_thread():
    sess = onyx.InferenceSession(neg_and_cast_model())
    x = np.array([1, 2, 3], np.float32)
    seen = run_async_and_wait(sess, {"x": x})
    assert seen["err"] == ""
    assert seen["user_data"] == "token"
    assert seen["thread"] != threading.get_ident()
    want = sess.run(None, {"x": x})
    assert len(seen["outputs"]) == len(want)
    for got, expected in zip(seen["outputs"], want):
        np.testing.assert_array_equal(got, expected)


def test_run_async_reports_failure_to_callback():
    sess = onyx.InferenceSession(neg_and_cast_model())
    seen = run_async_and_wait(sess, {"x": np.array([1, 2, 3], np.int64)})  # wrong dtype
    assert seen["outputs"] is None
    assert isinstance(seen["err"], str) and seen["err"]
    assert seen["user_data"] == "token"


# 4. session options from the model's ort_config metadata

ORT_CONFIG = '{"session_options": {"intra_op_num_threads": 2, "graph_optimization_level": 1, "enable_profiling": 1}}'


def config_model(config=ORT_CONFIG):
    return plus_b_model(numpy_helper.from_array(B, "b"), metadata_props={"ort_config": config})


def assert_options_from_model(sess):
    so = sess.get_session_options()
    assert so.intra_op_num_threads == 2
    assert so.graph_optimization_level == onyx.GraphOptimizationLevel.ORT_ENABLE_BASIC
    assert so.enable_profiling is True
    path = sess.end_profiling()
    assert path and os.path.exists(path)
    os.remove(path)


def test_ort_config_with_kwarg(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the profile lands in the working directory
    monkeypatch.delenv("ORT_LOAD_CONFIG_FROM_MODEL", raising=False)
    assert_options_from_model(onyx.InferenceSession(config_model(), read_config_from_model=True))


def test_ort_config_with_environment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ORT_LOAD_CONFIG_FROM_MODEL", "1")
    assert_options_from_model(onyx.InferenceSession(config_model()))


def test_ort_config_ignored_without_flag(monkeypatch):
    monkeypatch.delenv("ORT_LOAD_CONFIG_FROM_MODEL", raising=False)
    so = onyx.InferenceSession(config_model()).get_session_options()
    defaults = onyx.SessionOptions()
    assert so.intra_op_num_threads == defaults.intra_op_num_threads
    assert so.graph_optimization_level == onyx.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert so.enable_profiling is False


def test_ort_config_unknown_key_warns(monkeypatch):
    monkeypatch.delenv("ORT_LOAD_CONFIG_FROM_MODEL", raising=False)
    model = config_model('{"session_options": {"no_such_session_option": 7}}')
    with pytest.warns(UserWarning, match="no_such_session_option"):
        sess = onyx.InferenceSession(model, read_config_from_model=True)
    (y,) = sess.run(None, {"x": np.zeros((2, 3), np.float32)})
    np.testing.assert_array_equal(y, B)


# 5. initializers supplied as OrtValues

def test_add_initializer_ortvalue_overrides_model():
    model = plus_b_model(numpy_helper.from_array(B, "b"))
    x = np.ones((2, 3), np.float32)
    (plain,) = onyx.InferenceSession(model).run(None, {"x": x})
    np.testing.assert_array_equal(plain, x + B)
    so = onyx.SessionOptions()
    value = ortvalue(np.full((2, 3), 10, np.float32))
    so.add_initializer("b", value)
    (y,) = onyx.InferenceSession(model, sess_options=so).run(None, {"x": x})
    np.testing.assert_array_equal(y, np.full((2, 3), 11, np.float32))
    assert not np.array_equal(y, plain)


def external_b_model(tmp_path):
    """y = x + b where b's bytes are said to live in missing.bin, a file that is never written."""
    t = TensorProto()
    t.name = "b"
    t.data_type = TensorProto.FLOAT
    t.dims.extend([2, 3])
    t.data_location = TensorProto.EXTERNAL
    for key, val in (("location", "missing.bin"), ("offset", "0"), ("length", str(B.nbytes))):
        entry = t.external_data.add()
        entry.key, entry.value = key, val
    path = tmp_path / "external.onnx"
    path.write_bytes(plus_b_model(t))
    assert not (tmp_path / "missing.bin").exists()
    return path


def test_add_external_initializers_never_reads_the_file(tmp_path):
    path = external_b_model(tmp_path)
    so = onyx.SessionOptions()
    supplied = np.full((2, 3), -3, np.float32)
    so.add_external_initializers(["b"], [ortvalue(supplied)])
    (y,) = onyx.InferenceSession(str(path), sess_options=so).run(None, {"x": np.ones((2, 3), np.float32)})
    np.testing.assert_array_equal(y, np.full((2, 3), -2, np.float32))
    assert not (tmp_path / "missing.bin").exists()


def test_external_initializer_missing_file_fails(tmp_path):
    path = external_b_model(tmp_path)
    with pytest.raises(Exception, match="missing.bin"):
        onyx.InferenceSession(str(path))


# 6. the profile file: ORT's top-level JSON array, one event per line

def test_profile_layout(tmp_path):
    so = onyx.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "prof")
    sess = onyx.InferenceSession(plus_b_model(numpy_helper.from_array(B, "b")), sess_options=so)
    sess.run(None, {"x": np.ones((2, 3), np.float32)})
    path = sess.end_profiling()
    with open(path) as f:
        text = f.read()
    events = json.loads(text)
    assert isinstance(events, list) and events
    for e in events:
        assert e["ph"] == "X"
        for key in ("name", "ts", "dur", "pid", "tid", "args", "cat"):
            assert key in e, (key, e)
    lines = text.strip().splitlines()
    assert lines[0] == "[" and lines[-1] == "]"
    assert len(lines) == len(events) + 2
    for line in lines[1:-1]:
        assert isinstance(json.loads(line.rstrip().rstrip(",")), dict)
    assert any(e["cat"] == "Node" for e in events)


# 7. errors are RuntimeErrors

@pytest.mark.parametrize("name", ["Fail", "InvalidArgument", "NoSuchFile", "NoModel", "EngineError",
                                  "RuntimeException", "InvalidProtobuf", "ModelLoaded", "NotImplemented",
                                  "InvalidGraph", "EPFail"])
def test_errors_are_runtime_errors(name):
    assert issubclass(getattr(onyx, name), RuntimeError)


def test_runtime_error_catches_and_own_class_still_works(tmp_path):
    missing = str(tmp_path / "nothing.onnx")
    with pytest.raises(RuntimeError):
        onyx.InferenceSession(missing)
    with pytest.raises(onyx.NoSuchFile):
        onyx.InferenceSession(missing)
    sess = onyx.InferenceSession(neg_and_cast_model())
    with pytest.raises(onyx.InvalidArgument):
        sess.run(None, {"x": np.zeros(3, np.int64)})


# 8. build info and telemetry

def test_build_info_and_telemetry():
    assert "Build Info" in onyx.get_build_info()
    assert onyx.enable_telemetry_events() is None
    assert onyx.disable_telemetry_events() is None


# 9. check_and_normalize_provider_args

def test_provider_args_must_be_sequences():
    available = ["CPUExecutionProvider"]
    with pytest.raises(ValueError):
        check_and_normalize_provider_args(3, None, available)
    with pytest.raises(ValueError):
        check_and_normalize_provider_args(["CPUExecutionProvider"], {"a": "1"}, available)


def test_duplicate_provider_warns_and_keeps_first():
    available = ["CPUExecutionProvider"]
    with pytest.warns(UserWarning, match="Duplicate"):
        names, options = check_and_normalize_provider_args(
            [("CPUExecutionProvider", {"first": "1"}), ("CPUExecutionProvider", {"second": "2"})], None, available)
    assert names == ["CPUExecutionProvider"]
    assert options == [{"first": "1"}]


# 10. CUDA options ORT has and onyx does not act on

CUDA_OPTIONS = {"cudnn_conv_algo_search": "EXHAUSTIVE", "do_copy_in_default_stream": "1",
                "arena_extend_strategy": "kSameAsRequested", "cudnn_conv_use_max_workspace": "1"}
CUDA_HERE = "CUDAExecutionProvider" in onyx.get_available_providers()


def test_cuda_options_never_refused():
    model = neg_and_cast_model()
    providers = [("CUDAExecutionProvider", dict(CUDA_OPTIONS)), "CPUExecutionProvider"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sess = onyx.InferenceSession(model, providers=providers)
    if CUDA_HERE:
        assert sess.get_providers()[0] == "CUDAExecutionProvider"
    else:
        assert sess.get_providers() == ["CPUExecutionProvider"]
        user = [w for w in caught if issubclass(w.category, UserWarning)]
        assert len(user) == 1, [str(w.message) for w in user]
        assert "CUDA" in str(user[0].message) and "cannot run here" in str(user[0].message)
    x = np.array([1, 2, 3], np.float32)
    np.testing.assert_array_equal(sess.run(["y"], {"x": x})[0], -x)


@pytest.mark.skipif(not CUDA_HERE, reason="CUDA cannot run here")
def test_unknown_cuda_option_refused():
    with pytest.raises(RuntimeError, match="no_such_option"):
        onyx.InferenceSession(neg_and_cast_model(),
                              providers=[("CUDAExecutionProvider", {"no_such_option": "1"}), "CPUExecutionProvider"])
