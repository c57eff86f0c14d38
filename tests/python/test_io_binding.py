"""IOBinding and RunOptions: bound inputs and outputs, outputs of unknown shape, terminate,
only_execute_path_to_fetches, map inputs."""
import threading
import time

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onyx as onnxruntime
from conftest import make_model, tensor_info


@pytest.fixture
def add_relu():
    """z = Relu(x + y), float [N, 3]."""
    model = make_model([helper.make_node("Add", ["x", "y"], ["s"]), helper.make_node("Relu", ["s"], ["z"])],
                       [tensor_info("x", TensorProto.FLOAT, ["N", 3]), tensor_info("y", TensorProto.FLOAT, ["N", 3])],
                       [tensor_info("z", TensorProto.FLOAT, ["N", 3])])
    return onnxruntime.InferenceSession(model)


def inputs(n=2):
    x = np.arange(n * 3, dtype=np.float32).reshape(n, 3) - 2
    y = np.full((n, 3), 0.5, np.float32)
    return x, y


def test_bind_cpu_input_and_output_by_device(add_relu):
    x, y = inputs()
    b = add_relu.io_binding()
    b.bind_cpu_input("x", x)
    b.bind_cpu_input("y", y)
    b.bind_output("z")
    add_relu.run_with_iobinding(b)
    (z,) = b.copy_outputs_to_cpu()
    np.testing.assert_array_equal(z, np.maximum(x + y, 0))
    (zv,) = b.get_outputs()
    assert isinstance(zv, onnxruntime.OrtValue) and zv.shape() == [2, 3]


def test_bind_output_to_caller_buffer_is_written_in_place(add_relu):
    x, y = inputs()
    out = np.full((2, 3), -9, np.float32)
    b = add_relu.io_binding()
    b.bind_input("x", "cpu", 0, np.float32, list(x.shape), x.ctypes.data)
    b.bind_input("y", "cpu", 0, np.float32, list(y.shape), y.ctypes.data)
    b.bind_output("z", "cpu", 0, np.float32, list(out.shape), out.ctypes.data)
    add_relu.run_with_iobinding(b)
    np.testing.assert_array_equal(out, np.maximum(x + y, 0))
    assert b.get_outputs()[0].data_ptr() == out.ctypes.data


def test_bind_ortvalues(add_relu):
    x, y = inputs(4)
    z = onnxruntime.OrtValue.ortvalue_from_shape_and_type([4, 3], np.float32)
    b = add_relu.io_binding()
    b.bind_ortvalue_input("x", onnxruntime.OrtValue.ortvalue_from_numpy(x))
    b.bind_ortvalue_input("y", onnxruntime.OrtValue.ortvalue_from_numpy(y))
    b.bind_ortvalue_output("z", z)
    b.synchronize_inputs()
    add_relu.run_with_iobinding(b)
    b.synchronize_outputs()
    np.testing.assert_array_equal(z.numpy(), np.maximum(x + y, 0))


def test_wrong_buffer_shape_is_a_clear_error_and_untouched(add_relu):
    x, y = inputs(3)
    out = np.full((2, 3), -9, np.float32)
    b = add_relu.io_binding()
    b.bind_cpu_input("x", x)
    b.bind_cpu_input("y", y)
    b.bind_output("z", "cpu", 0, np.float32, [2, 3], out.ctypes.data)
    with pytest.raises(onnxruntime.InvalidArgument, match=r"float32\[2,3\].*float32\[3,3\]"):
        add_relu.run_with_iobinding(b)
    assert (out == -9).all()


def test_bind_errors(add_relu):
    b = add_relu.io_binding()
    with pytest.raises(onnxruntime.InvalidArgument, match="nope"):
        b.bind_cpu_input("nope", np.zeros((1, 3), np.float32))
    with pytest.raises(onnxruntime.InvalidArgument):
        b.bind_cpu_input("x", np.zeros((1, 3), np.int32))
    with pytest.raises(onnxruntime.InvalidArgument, match="float"):
        b.bind_output("z", "cpu", 0, np.int64, [1, 3], np.zeros(3, np.int64).ctypes.data)
    # a device the session has no provider for: this build lacks CUDA, or the session is on the CPU
    cuda_built = "CUDAExecutionProvider" in onnxruntime.capi.onnxruntime_pybind11_state._built_providers()
    with pytest.raises(onnxruntime.InvalidArgument if cuda_built else onnxruntime.EPFail,
                       match="none of this session's providers" if cuda_built else "no CUDA provider"):
        b.bind_output("z", "cuda", 0)
    with pytest.raises(ValueError):
        b.bind_output("z", "cpu", 0, None, None, 1234)


def test_rebinding_one_input_and_clearing(add_relu):
    x, y = inputs()
    b = add_relu.io_binding()
    b.bind_cpu_input("x", x)
    b.bind_cpu_input("y", y)
    b.bind_output("z")
    add_relu.run_with_iobinding(b)
    b.bind_cpu_input("x", x + 10)
    add_relu.run_with_iobinding(b)
    np.testing.assert_array_equal(b.copy_outputs_to_cpu()[0], np.maximum(x + 10 + y, 0))
    b.clear_binding_outputs()
    assert b.get_outputs() == []
    with pytest.raises(onnxruntime.InvalidArgument, match="no outputs are bound"):
        add_relu.run_with_iobinding(b)
    b.clear_binding_inputs()
    b.bind_output("z")
    with pytest.raises(onnxruntime.InvalidArgument, match="missing"):
        add_relu.run_with_iobinding(b)


def test_data_dependent_output_shape():
    model = make_model([helper.make_node("NonZero", ["x"], ["i"])], [tensor_info("x", TensorProto.FLOAT, ["n"])],
                       [tensor_info("i", TensorProto.INT64, [1, None])])
    sess = onnxruntime.InferenceSession(model)
    b = sess.io_binding()
    b.bind_cpu_input("x", np.array([0, 3, 0, 0, 1], np.float32))
    b.bind_output("i", "cpu")
    sess.run_with_iobinding(b)
    np.testing.assert_array_equal(b.copy_outputs_to_cpu()[0], [[1, 4]])


def counting_loop_model():
    """v = Loop(M, true, v0), adding 1 per iteration."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]), helper.make_node("Add", ["v_in", "one"], ["v_out"])],
        "body",
        [tensor_info("i", TensorProto.INT64, []), tensor_info("c_in", TensorProto.BOOL, []),
         tensor_info("v_in", TensorProto.FLOAT, [1])],
        [tensor_info("c_out", TensorProto.BOOL, []), tensor_info("v_out", TensorProto.FLOAT, [1])])
    return make_model([helper.make_node("Loop", ["M", "cond", "v0"], ["v"], body=body)],
                      [tensor_info("M", TensorProto.INT64, []), tensor_info("v0", TensorProto.FLOAT, [1])],
                      [tensor_info("v", TensorProto.FLOAT, [1])],
                      [numpy_helper.from_array(np.array(True), "cond"),
                       numpy_helper.from_array(np.ones(1, np.float32), "one")])


def test_terminate_from_another_thread():
    sess = onnxruntime.InferenceSession(counting_loop_model())
    ro = onnxruntime.RunOptions()
    feed = {"M": np.array(1 << 50, np.int64), "v0": np.zeros(1, np.float32)}
    timer = threading.Timer(0.1, lambda: setattr(ro, "terminate", True))
    start = time.monotonic()
    timer.start()
    with pytest.raises(onnxruntime.Fail, match="terminate"):
        sess.run(None, feed, ro)
    timer.join()
    assert time.monotonic() - start < 10
    assert ro.terminate
    ro.terminate = False
    (v,) = sess.run(None, {"M": np.array(4, np.int64), "v0": np.zeros(1, np.float32)}, ro)
    assert v[0] == 4


def test_run_time_limit_config_entry():
    sess = onnxruntime.InferenceSession(counting_loop_model())
    ro = onnxruntime.RunOptions()
    ro.add_run_config_entry("onyx.run.timeout_ms", "50")
    assert ro.get_run_config_entry("onyx.run.timeout_ms") == "50"
    with pytest.raises(onnxruntime.Fail, match="time limit"):
        sess.run(None, {"M": np.array(1 << 50, np.int64), "v0": np.zeros(1, np.float32)}, ro)
    with pytest.raises(ValueError):
        ro.add_run_config_entry("onyx.run.timeout_ms", "soon")


def test_only_execute_path_to_fetches():
    model = make_model([helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Reshape", ["x", "seven"], ["b"])],
                       [tensor_info("x", TensorProto.FLOAT, [4])],
                       [tensor_info("a", TensorProto.FLOAT, [4]), tensor_info("b", TensorProto.FLOAT, [7])],
                       [numpy_helper.from_array(np.array([7], np.int64), "seven")])
    opts = onnxruntime.SessionOptions()
    opts.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = onnxruntime.InferenceSession(model, opts)
    x = np.array([-1, 2, -3, 4], np.float32)
    with pytest.raises((onnxruntime.InvalidArgument, onnxruntime.RuntimeException), match="Reshape"):
        sess.run(["a"], {"x": x})  # every node runs by default, and the Reshape fails
    ro = onnxruntime.RunOptions()
    ro.only_execute_path_to_fetches = True
    (a,) = sess.run(["a"], {"x": x}, ro)
    np.testing.assert_array_equal(a, [0, 2, 0, 4])


def test_run_options_type_is_checked():
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [tensor_info("x", TensorProto.FLOAT, [1])],
                       [tensor_info("y", TensorProto.FLOAT, [1])])
    with pytest.raises(TypeError, match="RunOptions"):
        onnxruntime.InferenceSession(model).run(None, {"x": np.zeros(1, np.float32)}, {"terminate": True})


def test_map_input():
    map_type = onnx.TypeProto()  # onnx 1.12's helper has no make_map_type_proto
    map_type.map_type.key_type = TensorProto.INT64
    map_type.map_type.value_type.CopyFrom(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    model = make_model([helper.make_node("Identity", ["m"], ["out"])],
                       [helper.make_value_info("m", map_type)], [helper.make_value_info("out", map_type)])
    sess = onnxruntime.InferenceSession(model)
    assert sess.get_inputs()[0].type == "map(int64,tensor(float))"
    (out,) = sess.run(None, {"m": {1: 0.5, 7: 2.0}})
    assert out == {1: 0.5, 7: 2.0}
    with pytest.raises(onnxruntime.InvalidArgument, match="dict"):
        sess.run(None, {"m": [1, 2]})


def test_output_shapes_before_the_run(add_relu):
    assert add_relu.get_output_shapes({"x": (5, 3), "y": (5, 3)}) == {"z": [5, 3]}
    assert add_relu.get_output_shapes({}) == {"z": ["N", 3]}
    with pytest.raises(onnxruntime.InvalidArgument):
        add_relu.get_output_shapes({"x": (5, 4)})


def test_cuda_binding_with_a_recorded_graph():
    """OrtValues on the GPU bound in and out; enable_cuda_graph records the second run and
    replays later ones, with new values written into the bound input."""
    try:
        onnxruntime.OrtValue.ortvalue_from_numpy(np.zeros(1, np.float32), "cuda", 0)
    except onnxruntime.EPFail as e:
        pytest.skip(str(e))
    model = make_model([helper.make_node("Add", ["x", "y"], ["s"]), helper.make_node("Relu", ["s"], ["z"])],
                       [tensor_info("x", TensorProto.FLOAT, ["N", 3]), tensor_info("y", TensorProto.FLOAT, ["N", 3])],
                       [tensor_info("z", TensorProto.FLOAT, ["N", 3])])
    sess = onnxruntime.InferenceSession(
        model, providers=[("CUDAExecutionProvider", {"enable_cuda_graph": True}), "CPUExecutionProvider"])
    x, y = inputs()
    xv = onnxruntime.OrtValue.ortvalue_from_numpy(x, "cuda", 0)
    yv = onnxruntime.OrtValue.ortvalue_from_numpy(y, "cuda", 0)
    b = sess.io_binding()
    b.bind_ortvalue_input("x", xv)
    b.bind_ortvalue_input("y", yv)
    b.bind_output("z", "cuda", 0)
    for k in range(4):
        xk = x * (k - 1.5)
        xv.update_inplace(xk)
        sess.run_with_iobinding(b)
        assert b.get_outputs()[0].device_name() == "cuda"
        np.testing.assert_allclose(b.copy_outputs_to_cpu()[0], np.maximum(xk + y, 0), rtol=1e-6)
    unrecorded = onnxruntime.RunOptions()
    unrecorded.add_run_config_entry("gpu_graph_id", "-1")
    sess.run_with_iobinding(b, unrecorded)
    np.testing.assert_allclose(b.copy_outputs_to_cpu()[0], np.maximum(xk + y, 0), rtol=1e-6)
