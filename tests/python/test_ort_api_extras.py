"""onnxruntime's device descriptions, sparse tensors, LoRA adapters, input conversions and the
placement report, as onyx provides them."""
import os
import struct
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onyx
from conftest import make_model, tensor_info


# ---------------------------------------------------------------- devices and allocators

def test_devices_and_memory_infos():
    cpu = onyx.OrtDevice.make("cpu", 0)
    assert (cpu.device_type(), cpu.device_id()) == (onyx.OrtDevice.cpu(), 0)
    assert onyx.OrtDevice.make("cuda", 1).device_type() == onyx.OrtDevice.cuda()
    with pytest.raises(RuntimeError, match="Unsupported device type"):
        onyx.OrtDevice.make("tpu", 0)
    info = onyx.OrtMemoryInfo("Cpu", onyx.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, onyx.OrtMemType.DEFAULT)
    assert info.name == "Cpu" and info.device.device_type() == 0
    with pytest.raises(RuntimeError, match="unknown memory name"):
        onyx.OrtMemoryInfo("Tpu", onyx.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, onyx.OrtMemType.DEFAULT)


def test_arena_configurations():
    by_position = onyx.OrtArenaCfg(8, 0, 4, 2)
    assert (by_position.max_mem, by_position.arena_extend_strategy, by_position.initial_chunk_size_bytes,
            by_position.max_dead_bytes_per_chunk) == (8, 0, 4, 2)
    by_key = onyx.OrtArenaCfg({"max_mem": 16, "max_power_of_two_extend_bytes": 3})
    assert (by_key.max_mem, by_key.max_power_of_two_extend_bytes, by_key.arena_extend_strategy) == (16, 3, -1)
    with pytest.raises(ValueError, match="unknown key 'max_memory'"):
        onyx.OrtArenaCfg({"max_memory": 1})


def test_registering_an_allocator_is_checked_and_says_it_is_not_used():
    info = onyx.OrtMemoryInfo("Cpu", onyx.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, onyx.OrtMemType.DEFAULT)
    with pytest.raises(TypeError):
        onyx.create_and_register_allocator("Cpu", None)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        onyx.create_and_register_allocator(info, onyx.OrtArenaCfg(0, -1, -1, -1))
    with pytest.raises(RuntimeError, match="no NoSuchExecutionProvider"):
        onyx.create_and_register_allocator_v2("NoSuchExecutionProvider", info, {}, None)


# ---------------------------------------------------------------- sparse tensors

def test_coo_sparse_tensor_keeps_its_arrays_read_only():
    values = np.array([1.0, 2.0, 3.0], np.float32)
    indices = np.array([3, 5, 15], np.int64)
    st = onyx.SparseTensor.sparse_coo_from_numpy([4, 4], values, indices, onyx.OrtDevice.make("cpu", 0))
    assert st.format() == onyx.OrtSparseFormat.ORT_SPARSE_COO
    assert st.dense_shape() == [4, 4] and st.data_type() == "sparse_tensor(float)" and st.device_name() == "cpu"
    got = st.values()
    assert not got.flags.writeable and np.array_equal(got, values)
    assert np.array_equal(st.as_coo_view().indices(), indices)
    dense = st.to_dense()
    assert dense.reshape(-1)[15] == 3.0 and dense.sum() == 6.0
    with pytest.raises(RuntimeError, match="not ORT_SPARSE_CSRC"):
        st.as_csrc_view()
    with pytest.raises(RuntimeError, match="out of the dense shape"):
        onyx.SparseTensor.sparse_coo_from_numpy([2, 2], values, np.array([0, 1, 4]), None)
    strings = onyx.SparseTensor.sparse_coo_from_numpy([4, 4], np.array(["a", "b", "c"]), indices, None)
    assert strings.data_type() == "sparse_tensor(string)"
    if "CUDAExecutionProvider" not in onyx.get_available_providers():
        with pytest.raises(RuntimeError, match="no CUDA device"):
            st.to_cuda(onyx.OrtDevice.make("cuda", 0))
    with pytest.raises(RuntimeError, match="string values stay on the CPU"):
        strings.to_cuda(onyx.OrtDevice.make("cuda", 0))


def test_csr_sparse_tensor_and_its_ortvalue():
    values = np.array([1.0, 2.0, 3.0], np.float32)
    inner = np.array([1, 0, 2], np.int64)
    outer = np.array([0, 1, 2, 3], np.int64)
    st = onyx.SparseTensor.sparse_csr_from_numpy([3, 3], values, inner, outer, onyx.OrtDevice.make("cpu", 0))
    view = st.as_csrc_view()
    assert np.array_equal(view.inner(), inner) and np.array_equal(view.outer(), outer)
    assert np.array_equal(st.to_dense(), [[0, 1, 0], [2, 0, 0], [0, 0, 3]])
    with pytest.raises(RuntimeError, match="outer"):
        onyx.SparseTensor.sparse_csr_from_numpy([3, 3], values, inner, outer[:3], None)
    ov = onyx.OrtValue.ort_value_from_sparse_tensor(st)
    assert ov.is_sparse_tensor() and not ov.is_tensor() and ov.has_value()
    assert ov.as_sparse_tensor() is st
    with pytest.raises(RuntimeError, match="does not hold a sparse tensor"):
        onyx.OrtValue.ortvalue_from_numpy(values).as_sparse_tensor()
    # Not a feed: onyx's graphs take dense tensors, and says so.
    model = make_model([helper.make_node("Identity", ["x"], ["y"])], [tensor_info("x", TensorProto.FLOAT, [3, 3])],
                       [tensor_info("y", TensorProto.FLOAT, [3, 3])])
    sess = onyx.InferenceSession(model)
    with pytest.raises(onyx.NotImplemented, match="sparse tensor feed"):
        sess.run(None, {"x": ov})


# ---------------------------------------------------------------- LoRA adapters

def lora_model():
    """y = x @ (w + a @ b): a [4, 1] and b [1, 4] are overridable initializers (graph inputs with
    defaults), as in ONNX Runtime's LoRA models."""
    a0, b0 = np.zeros((4, 1), np.float32), np.zeros((1, 4), np.float32)
    w = np.eye(4, dtype=np.float32)
    nodes = [helper.make_node("MatMul", ["a", "b"], ["ab"]), helper.make_node("Add", ["w", "ab"], ["wab"]),
             helper.make_node("MatMul", ["x", "wab"], ["y"])]
    inputs = [tensor_info("x", TensorProto.FLOAT, [2, 4]), tensor_info("a", TensorProto.FLOAT, [4, 1]),
              tensor_info("b", TensorProto.FLOAT, [1, 4])]
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(a0, "a"), numpy_helper.from_array(b0, "b")]
    return make_model(nodes, inputs, [tensor_info("y", TensorProto.FLOAT, [2, 4])], inits)


def write_adapter(path, params, adapter_version=3, model_version=2):
    fmt = onyx.AdapterFormat()
    fmt.set_adapter_version(adapter_version)
    fmt.set_model_version(model_version)
    fmt.set_parameters({k: onyx.OrtValue.ortvalue_from_numpy(v) for k, v in params.items()})
    fmt.export_adapter(str(path))


def test_adapter_files_round_trip(tmp_path):
    params = {"a": np.arange(4, dtype=np.float32).reshape(4, 1), "ids": np.array([[7, -8, 9]], np.int64),
              "half": np.array([0.5, -2.0], np.float16)}
    write_adapter(tmp_path / "x.onnx_adapter", params)
    data = (tmp_path / "x.onnx_adapter").read_bytes()
    assert data[4:8] == b"TORT"  # ONNX Runtime's file identifier
    back = onyx.AdapterFormat.read_adapter(str(tmp_path / "x.onnx_adapter"))
    assert (back.get_adapter_version(), back.get_model_version()) == (3, 2)
    got = back.get_parameters()
    assert sorted(got) == sorted(params)
    for name, value in params.items():
        assert got[name].numpy().dtype == value.dtype
        np.testing.assert_array_equal(got[name].numpy(), value)


def test_damaged_adapter_files_are_refused(tmp_path):
    write_adapter(tmp_path / "ok.onnx_adapter", {"a": np.ones((4, 1), np.float32)})
    data = (tmp_path / "ok.onnx_adapter").read_bytes()
    cases = {"short": data[:40], "not_tort": data[:4] + b"XXXX" + data[8:],
             "root_past_end": struct.pack("<I", 10_000) + data[4:]}
    for name, damaged in cases.items():
        (tmp_path / name).write_bytes(damaged)
        with pytest.raises(onyx.InvalidProtobuf):
            onyx.AdapterFormat.read_adapter(str(tmp_path / name))
    # Every truncation is an error or a smaller adapter, never a crash.
    for cut in range(0, len(data), 7):
        (tmp_path / "cut").write_bytes(data[:cut])
        adapter = onyx.LoraAdapter()
        try:
            adapter.Load(str(tmp_path / "cut"))
        except onyx.InvalidProtobuf:
            pass


def test_runs_with_an_active_adapter_feed_its_parameters(tmp_path):
    a = np.array([[1.0], [0.0], [0.0], [0.0]], np.float32)
    b = np.array([[0.0, 0.0, 0.0, 5.0]], np.float32)
    write_adapter(tmp_path / "l.onnx_adapter", {"a": a, "b": b})
    adapter = onyx.LoraAdapter()
    adapter.Load(str(tmp_path / "l.onnx_adapter"))
    sess = onyx.InferenceSession(lora_model())
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    (base,) = sess.run(None, {"x": x})
    np.testing.assert_allclose(base, x)
    ro = onyx.RunOptions()
    ro.add_active_adapter(adapter)
    (tuned,) = sess.run(None, {"x": x}, ro)
    np.testing.assert_allclose(tuned, x @ (np.eye(4, dtype=np.float32) + a @ b))
    (again,) = sess.run(None, {"x": x})  # the adapter belongs to the run options, not the session
    np.testing.assert_allclose(again, x)
    stray = tmp_path / "stray.onnx_adapter"
    write_adapter(stray, {"c": b})
    other = onyx.LoraAdapter()
    other.Load(str(stray))
    ro2 = onyx.RunOptions()
    ro2.add_active_adapter(other)
    with pytest.raises(onyx.InvalidArgument, match="'c' is not an overridable initializer"):
        sess.run(None, {"x": x}, ro2)


# ---------------------------------------------------------------- inputs and reports

def test_python_lists_take_the_declared_type_and_void_arrays_are_strings():
    mul = make_model([helper.make_node("Mul", ["x", "x"], ["y"])], [tensor_info("x", TensorProto.FLOAT, [2])],
                     [tensor_info("y", TensorProto.FLOAT, [2])])
    (y,) = onyx.InferenceSession(mul).run(None, {"x": [1.5, 2.0]})
    assert y.dtype == np.float32 and list(y) == [2.25, 4.0]
    ident = make_model([helper.make_node("Identity", ["s"], ["t"])], [tensor_info("s", TensorProto.STRING, [2])],
                       [tensor_info("t", TensorProto.STRING, [2])])
    sess = onyx.InferenceSession(ident)
    (t,) = sess.run(None, {"s": np.array([b"abcd", b"efgh"], dtype=np.void)})
    assert list(t) == ["abcd", "efgh"]
    (t,) = sess.run(None, {"s": ["x", "yz"]})
    assert list(t) == ["x", "yz"]


def test_placement_report_and_memory_infos():
    model = make_model([helper.make_node("Relu", ["x"], ["r"], name="first"),
                        helper.make_node("Neg", ["r"], ["y"], name="second")],
                       [tensor_info("x", TensorProto.FLOAT, [2])], [tensor_info("y", TensorProto.FLOAT, [2])])
    with pytest.raises(onyx.Fail, match="session.record_ep_graph_assignment_info"):
        onyx.InferenceSession(model).get_provider_graph_assignment_info()
    so = onyx.SessionOptions()
    so.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    sess = onyx.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    assignments = sess.get_provider_graph_assignment_info()
    assert [a.ep_name for a in assignments] == ["CPUExecutionProvider"] * 2
    assert [(n.name, n.op_type, n.domain) for a in assignments for n in a.get_nodes()] == [("first", "Relu", ""),
                                                                                          ("second", "Neg", "")]
    (info,) = sess.get_input_memory_infos()
    assert info.name == "Cpu" and len(sess.get_output_memory_infos()) == 1
    assert sess.get_input_epdevices() == [None]
    v2 = onyx.OrtMemoryInfo.create_v2("Mine", onyx.OrtMemoryInfoDeviceType.CPU, 0, 0,
                                      onyx.OrtDeviceMemoryType.DEFAULT, 64, onyx.OrtAllocatorType.ORT_ARENA_ALLOCATOR)
    assert (v2.name, v2.alignment, v2.device_mem_type) == ("Mine", 64, onyx.OrtDeviceMemoryType.DEFAULT)
    assert onyx.OrtDevice.make("cuda", 0).device_vendor_id() == onyx.OrtDeviceVendorId.NVIDIA


def test_log_messages_reach_a_python_callback():
    seen = []
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [tensor_info("x", TensorProto.FLOAT, [2])],
                       [tensor_info("y", TensorProto.FLOAT, [2])])
    try:
        onyx.set_default_logger_callback(lambda *record: seen.append(record), severity=0)
        onyx.InferenceSession(model)
        assert seen, "session creation at verbose severity logs through the callback"
        for severity, category, logid, location, message in seen:
            assert isinstance(severity, int) and 0 <= severity <= 4
            assert isinstance(category, str) and isinstance(logid, str) and isinstance(location, str)
            assert isinstance(message, str) and message
        with pytest.raises(RuntimeError, match="invalid log severity 5"):
            onyx.set_default_logger_callback(print, severity=5)
        with pytest.raises(RuntimeError, match="callable"):
            onyx.set_default_logger_callback("print")

        def raising(*record):
            raise ValueError("from the callback")

        onyx.set_default_logger_callback(raising, severity=0)
        onyx.InferenceSession(model)  # reported as unraisable, never a crash or an exception here
    finally:
        onyx.set_default_logger_callback(None)
        onyx.set_default_logger_severity(2)


def test_ortvalues_take_part_in_numpys_array_protocol():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = onyx.OrtValue.ortvalue_from_numpy(a)
    view = np.asarray(v)
    assert view.ctypes.data == v.data_ptr() and view.dtype == np.float32
    np.testing.assert_array_equal(view, a)
    as_double = np.asarray(v, dtype=np.float64)
    assert as_double.dtype == np.float64 and as_double.ctypes.data != v.data_ptr()
    strings = onyx.OrtValue.ortvalue_from_numpy(np.array(["a", "bc"], dtype=object))
    assert list(np.asarray(strings)) == ["a", "bc"]


def test_set_denormal_as_zero_config_entry_flushes_denormals():
    graph = helper.make_graph([helper.make_node("Mul", ["x", "y"], ["z"])], "g",
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ("x", "y")],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    tiny = np.full(2, np.finfo(np.float32).tiny, np.float32)  # the smallest normal; a quarter of it is denormal
    quarter = np.full(2, 0.25, np.float32)
    plain = onyx.InferenceSession(model).run(None, {"x": tiny, "y": quarter})[0]
    so = onyx.SessionOptions()
    so.add_session_config_entry("session.set_denormal_as_zero", "1")
    flushed = onyx.InferenceSession(model, so).run(None, {"x": tiny, "y": quarter})[0]
    assert (plain > 0).all() and (flushed == 0).all()
