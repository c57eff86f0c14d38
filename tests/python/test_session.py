"""InferenceSession, NodeArg, metadata, providers, options and module functions."""
import copy
import os
import pathlib
import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onyx
import onyx as onnxruntime
from conftest import data_case, make_model, tensor_info, unary_model


def test_import_as_onnxruntime():
    assert onnxruntime.InferenceSession is onyx.InferenceSession
    assert onnxruntime.SessionOptions is onyx.capi.onnxruntime_pybind11_state.SessionOptions
    from onyx.capi import _pybind_state  # noqa: F401  (ORT's other module name)
    from onyx.capi.onnxruntime_inference_collection import InferenceSession
    assert InferenceSession is onyx.InferenceSession


def test_run_backend_model_from_path():
    case = data_case("node/test_relu")
    sess = onnxruntime.InferenceSession(os.path.join(case, "model.onnx"), providers=["CPUExecutionProvider"])
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(case, "test_data_set_0", "input_0.pb")))
    want = numpy_helper.to_array(onnx.load_tensor(os.path.join(case, "test_data_set_0", "output_0.pb")))
    (y,) = sess.run(None, {sess.get_inputs()[0].name: x})
    np.testing.assert_array_equal(y, want)


def test_path_like_and_bytes(tmp_path):
    model = unary_model("Neg", TensorProto.FLOAT, [3])
    path = tmp_path / "neg.onnx"
    path.write_bytes(model)
    x = np.array([1, -2, 3], dtype=np.float32)
    for source in (path, str(path), model, bytearray(model)):
        (y,) = onyx.InferenceSession(source).run(None, {"x": x})
        np.testing.assert_array_equal(y, -x)
    with pytest.raises(TypeError, match="Unable to load from type"):
        onyx.InferenceSession(42)


def test_node_args():
    dims = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, None])
    model = make_model([helper.make_node("Identity", ["x"], ["y"]), helper.make_node("Shape", ["x"], ["s"])],
                       [dims], [tensor_info("y", TensorProto.FLOAT, None), tensor_info("s", TensorProto.INT64, [3])])
    sess = onyx.InferenceSession(model)
    (x,) = sess.get_inputs()
    assert (x.name, x.type, x.shape) == ("x", "tensor(float)", ["batch", 3, None])
    assert str(x) == "NodeArg(name='x', type='tensor(float)', shape=['batch', 3, None])"
    y, s = sess.get_outputs()
    assert (y.name, y.type, y.shape) == ("y", "tensor(float)", [])
    assert (s.name, s.type, s.shape) == ("s", "tensor(int64)", [3])


def test_sequence_and_optional_node_args():
    case = data_case("node/test_identity_opt")
    sess = onyx.InferenceSession(os.path.join(case, "model.onnx"))
    assert sess.get_inputs()[0].type == "optional(seq(tensor(float)))"
    assert sess.get_inputs()[0].shape == []
    case = data_case("node/test_identity_sequence")
    sess = onyx.InferenceSession(os.path.join(case, "model.onnx"))
    assert sess.get_outputs()[0].type == "seq(tensor(float))"


def test_overridable_initializers(add_model):
    sess = onyx.InferenceSession(add_model)
    assert [a.name for a in sess.get_inputs()] == ["x"]
    assert [(a.name, a.type, a.shape) for a in sess.get_overridable_initializers()] == [("b", "tensor(float)", [2, 3])]
    x = np.ones((2, 3), np.float32)
    (y,) = sess.run(None, {"x": x})
    np.testing.assert_array_equal(y, 1 + np.arange(6, dtype=np.float32).reshape(2, 3))
    (y,) = sess.run(None, {"x": x, "b": np.full((2, 3), 10, np.float32)})
    np.testing.assert_array_equal(y, np.full((2, 3), 11, np.float32))


def test_output_names():
    model = make_model([helper.make_node("Neg", ["x"], ["n"]), helper.make_node("Abs", ["x"], ["a"])],
                       [tensor_info("x", TensorProto.FLOAT, [2])],
                       [tensor_info("n", TensorProto.FLOAT, [2]), tensor_info("a", TensorProto.FLOAT, [2])])
    sess = onyx.InferenceSession(model)
    x = np.array([1, -2], np.float32)
    n, a = sess.run(None, {"x": x})
    np.testing.assert_array_equal(n, -x)
    np.testing.assert_array_equal(a, np.abs(x))
    assert len(sess.run([], {"x": x})) == 2
    (a2, n2) = sess.run(["a", "n"], {"x": x})
    np.testing.assert_array_equal(a2, a)
    np.testing.assert_array_equal(n2, n)
    assert len(sess.run(("n",), {"x": x})) == 1


def test_modelmeta():
    model = make_model([helper.make_node("Identity", ["x"], ["y"])], [tensor_info("x", TensorProto.FLOAT, [1])],
                       [tensor_info("y", TensorProto.FLOAT, [1])], graph_name="main_graph", producer_name="maker",
                       producer_version="1.2", domain="ai.example", doc_string="a model", model_version=7,
                       metadata_props={"author": "someone", "license": "MIT"})
    meta = onyx.InferenceSession(model).get_modelmeta()
    assert isinstance(meta, onyx.ModelMetadata)
    assert meta.producer_name == "maker"
    assert meta.graph_name == "main_graph"
    assert meta.domain == "ai.example"
    assert meta.description == "a model"
    assert meta.version == 7
    assert meta.custom_metadata_map == {"author": "someone", "license": "MIT"}


def test_providers(add_model):
    sess = onyx.InferenceSession(add_model)
    assert sess.get_providers() == ["CPUExecutionProvider"]
    assert sess.get_provider_options() == {"CPUExecutionProvider": {}}
    with pytest.warns(UserWarning, match="TensorrtExecutionProvider"):
        sess = onyx.InferenceSession(add_model, providers=["TensorrtExecutionProvider", "CPUExecutionProvider"])
    assert sess.get_providers() == ["CPUExecutionProvider"]
    # A priority list: CUDA where it cannot run is left out with one warning saying why, and
    # the CPU takes the model; with session.disable_cpu_ep_fallback = 1 it is an error instead.
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    if "CUDAExecutionProvider" in onyx.get_available_providers():
        sess = onyx.InferenceSession(add_model, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
        assert sess.get_providers() == ["CUDAExecutionProvider", "CPUExecutionProvider"]
    else:
        with pytest.warns(UserWarning, match="CUDAExecutionProvider' cannot run here") as caught:
            sess = onyx.InferenceSession(add_model, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
        assert len(caught) == 1
        why = str(caught[0].message)
        assert "this build of onyx does not have it" in why or "no CUDA device is usable" in why, why
        assert sess.get_providers() == ["CPUExecutionProvider"]
        strict = onyx.SessionOptions()
        strict.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
        with pytest.raises(RuntimeError, match="built without CUDA|no CUDA device is usable"):
            onyx.InferenceSession(add_model, strict, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    (y,) = sess.run(None, {"x": x})
    np.testing.assert_allclose(y, x + x)  # b, the initializer, holds the same values
    # The most common idiom always makes a session.
    sess = onyx.InferenceSession(add_model, providers=onyx.get_available_providers())
    assert sess.get_providers()[-1] == "CPUExecutionProvider"
    # A name no runtime has is refused, as ONNX Runtime does.
    with pytest.raises(RuntimeError, match="Unknown Provider Type: NoSuchProvider"):
        onyx.InferenceSession(add_model, providers=["NoSuchProvider"])
    sess = onyx.InferenceSession(add_model, providers=[("CPUExecutionProvider", {"arena_extend_strategy": 1})])
    assert sess.get_provider_options() == {"CPUExecutionProvider": {"arena_extend_strategy": "1"}}
    with pytest.raises(ValueError, match="same length"):
        onyx.InferenceSession(add_model, providers=["CPUExecutionProvider"], provider_options=[{}, {}])
    with pytest.raises(ValueError):
        onyx.InferenceSession(add_model, providers=[1])
    sess.set_providers(["CPUExecutionProvider"])
    assert sess.get_providers() == ["CPUExecutionProvider"]


def test_session_options_defaults():
    so = onyx.SessionOptions()
    assert so.graph_optimization_level == onyx.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert so.execution_mode == onyx.ExecutionMode.ORT_SEQUENTIAL
    assert (so.intra_op_num_threads, so.inter_op_num_threads) == (0, 0)
    assert (so.log_severity_level, so.log_verbosity_level, so.logid) == (-1, 0, "")
    assert so.enable_mem_pattern and so.enable_mem_reuse and so.enable_cpu_mem_arena
    assert not so.enable_profiling and not so.use_deterministic_compute
    assert so.profile_file_prefix == "onnxruntime_profile_"
    assert so.optimized_model_filepath == ""
    assert "accepted and stored" in onyx.SessionOptions.__doc__


def test_session_options_set_and_copied(add_model, tmp_path):
    so = onyx.SessionOptions()
    so.graph_optimization_level = onyx.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.execution_mode = onyx.ExecutionMode.ORT_PARALLEL
    so.intra_op_num_threads = 2
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    so.log_verbosity_level = 1
    so.logid = "tag"
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "prof")
    so.enable_mem_pattern = False
    so.enable_cpu_mem_arena = False
    so.enable_mem_reuse = False
    so.use_deterministic_compute = True
    so.optimized_model_filepath = "/tmp/never_written.onnx"
    so.add_session_config_entry("session.use_env_allocators", "1")
    so.add_session_config_entry("onyx.unknown.key", "x")  # accepted, logged
    assert so.get_session_config_entry("session.use_env_allocators") == "1"
    with pytest.raises(RuntimeError, match="no.such.key"):
        so.get_session_config_entry("no.such.key")
    sess = onyx.InferenceSession(add_model, sess_options=so)
    got = sess.get_session_options()
    assert got is not so
    assert got.graph_optimization_level == onyx.GraphOptimizationLevel.ORT_DISABLE_ALL
    assert got.execution_mode == onyx.ExecutionMode.ORT_PARALLEL
    assert (got.intra_op_num_threads, got.inter_op_num_threads, got.log_severity_level) == (2, 1, 3)
    assert got.logid == "tag" and got.enable_profiling and not got.enable_mem_pattern
    assert got.get_session_config_entry("onyx.unknown.key") == "x"
    (y,) = sess.run(None, {"x": np.zeros((2, 3), np.float32)})
    assert y.shape == (2, 3)
    assert os.path.basename(sess.end_profiling()).startswith("prof_")
    so2 = copy.copy(so)
    so2.logid = "other"
    assert so.logid == "tag"


def test_session_options_validation():
    so = onyx.SessionOptions()
    so.graph_optimization_level = 1  # plain ints are taken too
    assert so.graph_optimization_level == onyx.GraphOptimizationLevel.ORT_ENABLE_BASIC
    with pytest.raises(ValueError):
        so.graph_optimization_level = 5
    with pytest.raises(ValueError):
        so.intra_op_num_threads = -1
    with pytest.raises(ValueError):
        so.log_severity_level = 9
    with pytest.raises(TypeError):
        onyx.InferenceSession(unary_model("Neg", TensorProto.FLOAT), sess_options="fast")


def test_run_options(add_model):
    ro = onyx.RunOptions()
    assert (ro.log_severity_level, ro.log_verbosity_level, ro.logid) == (-1, 0, "")
    assert not ro.terminate and not ro.only_execute_path_to_fetches
    ro.log_severity_level = 0
    ro.logid = "run-1"
    ro.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    assert ro.get_run_config_entry("memory.enable_memory_arena_shrinkage") == "cpu:0"
    with pytest.raises(RuntimeError):
        ro.get_run_config_entry("missing")
    sess = onyx.InferenceSession(add_model)
    (y,) = sess.run(["y"], {"x": np.zeros((2, 3), np.float32)}, ro)
    assert y.shape == (2, 3)
    (y,) = sess.run(["y"], {"x": np.zeros((2, 3), np.float32)}, run_options=ro)


def test_module_functions():
    # Available: the providers that can run on this machine (onyx's choice; ORT lists its build's).
    available = onyx.get_available_providers()
    built = onyx.capi.onnxruntime_pybind11_state._built_providers()
    assert available in (["CPUExecutionProvider"], ["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert set(available) <= set(built)
    assert "CPUExecutionProvider" in onyx.get_all_providers()
    assert "CUDAExecutionProvider" in onyx.get_all_providers()
    # As ONNX Runtime's: what the build is for, whether or not a GPU is here.
    assert onyx.get_device() == ("GPU" if "CUDAExecutionProvider" in built else "CPU")
    assert "Build Info" in onyx.get_build_info()
    onyx.disable_telemetry_events()
    onyx.enable_telemetry_events()
    assert onyx.get_version_string() == onyx.__version__
    assert onyx.__version__.count(".") == 2
    onyx.set_default_logger_severity(3)
    onyx.set_default_logger_severity(2)
    with pytest.raises(ValueError):
        onyx.set_default_logger_severity(7)


def test_pathlib_model_from_backend_suite():
    case = pathlib.Path(data_case("node/test_add_bcast"))
    sess = onyx.InferenceSession(case / "model.onnx")
    names = [i.name for i in sess.get_inputs()]
    feeds = {n: numpy_helper.to_array(onnx.load_tensor(str(case / "test_data_set_0" / f"input_{k}.pb")))
             for k, n in enumerate(names)}
    want = numpy_helper.to_array(onnx.load_tensor(str(case / "test_data_set_0" / "output_0.pb")))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (y,) = sess.run(None, feeds)
    np.testing.assert_allclose(y, want, rtol=1e-6)


def test_bf16_gemm_config_entry():
    # onyx.cpu.gemm_bf16 = "1": MatMul with constant weights multiplies in bfloat16 (where the
    # CPU can); outputs stay float32 and close to the float32 session's.
    rng = np.random.default_rng(0)
    w = rng.uniform(-1, 1, (256, 64)).astype(np.float32)
    model = make_model([helper.make_node("MatMul", ["x", "w"], ["y"])],
                       [tensor_info("x", TensorProto.FLOAT, [32, 256])],
                       [tensor_info("y", TensorProto.FLOAT, [32, 64])],
                       [numpy_helper.from_array(w, "w")])
    x = rng.uniform(-1, 1, (32, 256)).astype(np.float32)
    so = onyx.SessionOptions()
    with pytest.raises(ValueError, match="onyx.cpu.gemm_bf16"):
        so.add_session_config_entry("onyx.cpu.gemm_bf16", "yes")
    so.add_session_config_entry("onyx.cpu.gemm_bf16", "1")
    (y16,) = onyx.InferenceSession(model, sess_options=so).run(None, {"x": x})
    (y32,) = onyx.InferenceSession(model).run(None, {"x": x})
    ref = x.astype(np.float64) @ w.astype(np.float64)
    scale = np.abs(ref).max()
    assert y16.dtype == np.float32
    assert np.abs(y32 - ref).max() / scale < 1e-5
    assert np.abs(y16 - ref).max() / scale < 2e-2


def test_disabled_optimizers(tmp_path):
    # ORT's InferenceSession(..., disabled_optimizers=[...]): the passes named (onyx's or ORT's
    # spelling) do not run; a name no pass has raises at creation.
    half, one, root2 = (numpy_helper.from_array(np.array(v, np.float32), n)
                        for v, n in ((0.5, "half"), (1.0, "one"), (np.sqrt(2.0), "root2")))
    model = make_model([helper.make_node("Div", ["x", "root2"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
                        helper.make_node("Add", ["e", "one"], ["p"]), helper.make_node("Mul", ["x", "p"], ["xp"]),
                        helper.make_node("Mul", ["xp", "half"], ["y"])],
                       [tensor_info("x", TensorProto.FLOAT, [2, 3])], [tensor_info("y", TensorProto.FLOAT, [2, 3])],
                       [half, one, root2])
    x = np.linspace(-3, 3, 6, dtype=np.float32).reshape(2, 3)

    def optimised_ops(**kwargs):
        so = onnxruntime.SessionOptions()
        so.optimized_model_filepath = str(tmp_path / "opt.onnx")
        (y,) = onnxruntime.InferenceSession(model, sess_options=so, **kwargs).run(None, {"x": x})
        return sorted(n.op_type for n in onnx.load(so.optimized_model_filepath).graph.node), y

    fused, y_fused = optimised_ops()
    assert fused == ["Gelu"]
    for names in (["GeluFusion"], {"gelu_fusion"}, "GeluFusion"):
        kept, y_kept = optimised_ops(disabled_optimizers=names)
        assert kept == ["Add", "Div", "Erf", "Mul", "Mul"], names
        np.testing.assert_allclose(y_kept, y_fused, rtol=1e-5, atol=1e-6)
    with pytest.raises(Exception, match="no graph optimisation pass is named 'NoSuchFusion'"):
        onnxruntime.InferenceSession(model, disabled_optimizers=["NoSuchFusion"])
