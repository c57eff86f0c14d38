"""The same onnxruntime-API code run with `import onnxruntime` and with `import onyx as
onnxruntime`, in one process: what a script sees (names, types, shapes, metadata, option
defaults, values, errors) must be the same. Each test calls both() with a function of the module
and compares what the two return."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxruntime
import onyx


def both(fn):
    """fn(module) for ORT and for onyx; returns (ort, onyx)."""
    return fn(onnxruntime), fn(onyx)


def same(fn):
    ort, ours = both(fn)
    assert ours == ort, f"onyx: {ours!r}\nORT:  {ort!r}"
    return ort


def raised(fn):
    """fn(module) must raise with both; returns the two exception class names."""
    def call(module):
        with pytest.raises(Exception) as info:
            fn(module)
        return type(info.value).__name__
    return both(call)


def make(nodes, inputs, outputs, inits=(), opset=17, ir=8, **fields):
    metadata = fields.pop("metadata", None)
    graph = helper.make_graph(nodes, fields.pop("graph_name", "g"), inputs, outputs, list(inits),
                              doc_string=fields.pop("graph_doc", ""))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], **fields)
    model.ir_version = ir
    if metadata:
        helper.set_model_props(model, metadata)
    return model.SerializeToString()


def session(module, model, **kw):
    options = module.SessionOptions()
    options.intra_op_num_threads = 1
    return module.InferenceSession(model, options, providers=["CPUExecutionProvider"], **kw)


SHAPES = make([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Shape", ["x"], ["s"])],
              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, None])],
              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3, None]),
               helper.make_tensor_value_info("s", TensorProto.INT64, [3])],
              producer_name="parity", producer_version="7", domain="org.example", model_version=3,
              doc_string="a model", graph_name="shapes", graph_doc="the graph",
              metadata={"author": "onyx", "purpose": "parity"})


def describe(args):
    return [(a.name, a.type, list(a.shape)) for a in args]


def test_inputs_and_outputs():
    same(lambda m: (describe(session(m, SHAPES).get_inputs()), describe(session(m, SHAPES).get_outputs())))


def test_overridable_initializers():
    model = make([helper.make_node("Add", ["x", "b"], ["y"])], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
                 [helper.make_tensor("b", TensorProto.FLOAT, [2], [1, 2])], ir=4)
    same(lambda m: describe(session(m, model).get_overridable_initializers()))


def test_model_metadata():
    def meta(m):
        md = session(m, SHAPES).get_modelmeta()
        return (md.producer_name, md.graph_name, md.domain, md.description, md.graph_description, md.version,
                md.custom_metadata_map)
    same(meta)


def test_run_values_and_types():
    x = np.array([[[-1, 2], [3, -4], [5, 6]]], np.float32)

    def run(m):
        y, s = session(m, SHAPES).run(None, {"x": x})
        return y.dtype.str, y.tolist(), s.dtype.str, s.tolist()
    same(run)
    same(lambda m: [o.tolist() for o in session(m, SHAPES).run(["s"], {"x": x})])


@pytest.mark.parametrize("feed", [
    {"nope": np.zeros((1, 3, 2), np.float32)},          # a name the model does not have
    {"x": np.zeros((1, 3, 2), np.float64)},             # the wrong element type
    {"x": np.zeros((1, 4, 2), np.float32)},             # a fixed dim that does not match
    {"x": np.zeros((3, 2), np.float32)},                # the wrong rank
    {},                                                 # the input missing
])
def test_bad_feeds_raise_the_same_class(feed):
    ort, ours = raised(lambda m: session(m, SHAPES).run(None, feed))
    assert ours == ort


def test_bad_output_name():
    ort, ours = raised(lambda m: session(m, SHAPES).run(["nope"], {"x": np.zeros((1, 3, 2), np.float32)}))
    assert ours == ort


def test_bad_model_bytes():
    ort, ours = raised(lambda m: session(m, b"\x08\x07garbage that is not a model"))
    assert ours == ort


def test_missing_model_file(tmp_path):
    ort, ours = raised(lambda m: session(m, str(tmp_path / "absent.onnx")))
    assert ours == ort


def test_session_options_defaults():
    fields = ["enable_cpu_mem_arena", "enable_mem_pattern", "enable_mem_reuse", "enable_profiling",
              "execution_mode", "execution_order", "graph_optimization_level", "inter_op_num_threads",
              "intra_op_num_threads", "log_severity_level", "log_verbosity_level", "logid",
              "optimized_model_filepath", "profile_file_prefix", "use_deterministic_compute"]
    same(lambda m: {f: str(getattr(m.SessionOptions(), f)) for f in fields})


def test_run_options_defaults():
    fields = ["log_severity_level", "log_verbosity_level", "logid", "only_execute_path_to_fetches", "terminate"]
    same(lambda m: {f: getattr(m.RunOptions(), f) for f in fields})


def test_enums():
    same(lambda m: [int(v) for v in (m.GraphOptimizationLevel.ORT_DISABLE_ALL, m.GraphOptimizationLevel.ORT_ENABLE_BASIC,
                                     m.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, m.GraphOptimizationLevel.ORT_ENABLE_ALL,
                                     m.ExecutionMode.ORT_SEQUENTIAL, m.ExecutionMode.ORT_PARALLEL)])


def test_module_functions():
    # get_device() names the build ("GPU" for ORT's and onyx's CUDA builds, whether or not a GPU
    # is there), so it is compared only where onyx was built without CUDA, as the reference is.
    cuda_build = "CUDA" in onyx.get_build_info()
    same(lambda m: ("CPUExecutionProvider" in m.get_available_providers(), session(m, SHAPES).get_providers()))
    if not cuda_build:
        same(lambda m: m.get_device())


ELEMENT_TYPES = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                 np.uint32, np.uint64, np.bool_]


@pytest.mark.parametrize("dtype", ELEMENT_TYPES, ids=[np.dtype(t).name for t in ELEMENT_TYPES])
def test_ortvalue(dtype):
    a = (np.arange(6) % 3).astype(dtype).reshape(2, 3)

    def info(m):
        v = m.OrtValue.ortvalue_from_numpy(a)
        empty = m.OrtValue.ortvalue_from_shape_and_type([2, 0], dtype)
        return (v.shape(), v.data_type(), v.element_type() == dtype, v.device_name(), v.is_tensor(),
                v.has_value(), v.numpy().tolist(), v.numpy().dtype.str, empty.shape(), empty.data_type())
    same(info)


def test_io_binding():
    x = np.array([[[1, -2], [3, -4], [5, -6]]], np.float32)

    def bound(m):
        s = session(m, SHAPES)
        binding = s.io_binding()
        binding.bind_cpu_input("x", x)
        binding.bind_output("y")
        binding.bind_output("s")
        s.run_with_iobinding(binding)
        return [o.tolist() for o in binding.copy_outputs_to_cpu()], [o.shape() for o in binding.get_outputs()]
    same(bound)


def test_run_with_ort_values():
    x = np.array([[[1, -2], [3, -4], [5, -6]]], np.float32)

    def run(m):
        s = session(m, SHAPES)
        out = s.run_with_ort_values(None, {"x": m.OrtValue.ortvalue_from_numpy(x)})
        return [(o.shape(), o.data_type(), o.numpy().tolist()) for o in out]
    same(run)


def test_strings_and_sequences():
    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.STRING, None))
    model = make([helper.make_node("Identity", ["t"], ["u"]), helper.make_node("SequenceConstruct", ["t", "t"], ["q"])],
                 [helper.make_tensor_value_info("t", TensorProto.STRING, [2])],
                 [helper.make_tensor_value_info("u", TensorProto.STRING, [2]), helper.make_value_info("q", seq)])
    t = np.array(["héllo", ""], dtype=object)

    def run(m):
        s = session(m, model)
        u, q = s.run(None, {"t": t})
        return describe(s.get_outputs()), u.tolist(), type(q).__name__, [x.tolist() for x in q]
    same(run)


def test_optional_output_empty():
    opt = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    model = make([helper.make_node("Optional", [], ["o"], type=helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))],
                 [], [helper.make_value_info("o", opt)], opset=18)
    same(lambda m: (describe(session(m, model).get_outputs()), session(m, model).run(None, {})))


def test_float16_and_bool():
    model = make([helper.make_node("Not", ["b"], ["nb"]), helper.make_node("Neg", ["h"], ["nh"])],
                 [helper.make_tensor_value_info("b", TensorProto.BOOL, [3]),
                  helper.make_tensor_value_info("h", TensorProto.FLOAT16, [3])],
                 [helper.make_tensor_value_info("nb", TensorProto.BOOL, [3]),
                  helper.make_tensor_value_info("nh", TensorProto.FLOAT16, [3])])
    feeds = {"b": np.array([True, False, True]), "h": np.array([1.5, -0.25, 65504], np.float16)}
    same(lambda m: [(o.dtype.str, o.tolist()) for o in session(m, model).run(None, feeds)])


def test_free_dimension_override():
    def shape(m):
        options = m.SessionOptions()
        options.add_free_dimension_override_by_name("batch", 4)
        return describe(m.InferenceSession(SHAPES, options, providers=["CPUExecutionProvider"]).get_inputs())
    same(shape)
