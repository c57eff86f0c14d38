// SessionOptions, RunOptions and their enums, as onnxruntime.SessionOptions has them.
#include <pybind11/stl.h>

#include <atomic>

#include "binding.h"
#include "capi/custom_ops.h"
#include "core/logging.h"
#include "session/session_config.h"

namespace onyx::python {
namespace {

std::atomic<int> g_default_severity{2};  // warning, ORT's default

void check_severity(int level) {
  if (level < -1 || level > 4)
    throw py::value_error("invalid log severity " + std::to_string(level) +
                          " (0 verbose, 1 info, 2 warning, 3 error, 4 fatal; -1 the default)");
}

// Enum-typed properties also take plain ints, as ORT's users sometimes write them.
template <typename E> int enum_or_int(py::handle v) {
  if (py::isinstance<E>(v)) return int(v.cast<E>());
  return v.cast<int>();
}

enum class GraphOptimizationLevel { ORT_DISABLE_ALL = 0, ORT_ENABLE_BASIC = 1, ORT_ENABLE_EXTENDED = 2,
                                    ORT_ENABLE_LAYOUT = 3, ORT_ENABLE_ALL = 99 };
enum class ExecutionMode { ORT_SEQUENTIAL = 0, ORT_PARALLEL = 1 };
enum class ExecutionOrder { DEFAULT = 0, PRIORITY_BASED = 1, MEMORY_EFFICIENT = 2 };

constexpr const char* kSessionOptionsDoc = R"(Options for InferenceSession, as onnxruntime.SessionOptions.

onyx acts on: log_severity_level (load and run messages), enable_profiling and
profile_file_prefix (a Chrome-trace JSON written by InferenceSession.end_profiling()),
add_free_dimension_override_by_name / _by_denotation, add_initializer /
add_external_initializers (numpy arrays, used without a copy: keep them alive and unchanged
while sessions made with these options live), graph_optimization_level (ORT_DISABLE_ALL: as loaded;
ORT_ENABLE_BASIC: constant folding and redundant-node eliminations; ORT_ENABLE_EXTENDED: also
fusions into com.microsoft ops; ORT_ENABLE_ALL, the default: also layout changes), intra_op_num_threads (the threads
inside one node, 0 = one per core), enable_cpu_mem_arena (keep run memory between runs),
inter_op_num_threads and execution_mode (accepted; nodes run in order),
optimized_model_filepath (the graph after optimisation saved as an ONNX model; the session
config entries session.optimized_model_external_initializers_file_name and
session.optimized_model_external_initializers_min_size_in_bytes put large initializers in an
external data file), and onyx's own session config entry onyx.cpu.gemm_bf16 ("1": float32
MatMul and Gemm with constant weights multiply in bfloat16, about twice as fast on CPUs with
AVX512_BF16, at about 1e-2 relative error), and register_custom_ops_library (an ONNX Runtime
custom-op library's operators, run on the CPU). The other knobs (enable_mem_pattern, enable_mem_reuse,
use_deterministic_compute, execution_order, log_verbosity_level, logid, other session config
entries) are accepted and stored, as ONNX Runtime accepts them, so that scripts setting them
keep working: onyx plans memory and orders nodes its own way, and its CPU kernels are
deterministic whatever use_deterministic_compute says.)";


}  // namespace

int default_log_severity() { return g_default_severity.load(); }
void set_default_log_severity(int level) { g_default_severity.store(level); }

SessionOptions PySessionOptions::resolved() const {
  SessionOptions s = core;
  s.log_level = log_level();
  s.enable_cpu_mem_arena = enable_cpu_mem_arena;
  s.optimized_model_filepath = optimized_model_filepath;
  apply_session_config(config, s);
  if (custom_ops) {
    auto kernels = capi::custom_kernels_of(*custom_ops, config, s.log_level);
    if (!kernels.ok()) raise_status(kernels.status(), Phase::kLoad);
    s.custom_kernels = *kernels;
  }
  return s;
}

void register_options(py::module_& m) {
  py::enum_<GraphOptimizationLevel>(m, "GraphOptimizationLevel")
      .value("ORT_DISABLE_ALL", GraphOptimizationLevel::ORT_DISABLE_ALL)
      .value("ORT_ENABLE_BASIC", GraphOptimizationLevel::ORT_ENABLE_BASIC)
      .value("ORT_ENABLE_EXTENDED", GraphOptimizationLevel::ORT_ENABLE_EXTENDED)
      .value("ORT_ENABLE_LAYOUT", GraphOptimizationLevel::ORT_ENABLE_LAYOUT)
      .value("ORT_ENABLE_ALL", GraphOptimizationLevel::ORT_ENABLE_ALL);
  py::enum_<ExecutionMode>(m, "ExecutionMode")
      .value("ORT_SEQUENTIAL", ExecutionMode::ORT_SEQUENTIAL)
      .value("ORT_PARALLEL", ExecutionMode::ORT_PARALLEL);
  py::enum_<ExecutionOrder>(m, "ExecutionOrder")
      .value("DEFAULT", ExecutionOrder::DEFAULT)
      .value("PRIORITY_BASED", ExecutionOrder::PRIORITY_BASED)
      .value("MEMORY_EFFICIENT", ExecutionOrder::MEMORY_EFFICIENT);

  using SO = PySessionOptions;
  py::class_<SO>(m, "SessionOptions", kSessionOptionsDoc)
      .def(py::init<>())
      .def_property(
          "graph_optimization_level",
          [](const SO& o) { return GraphOptimizationLevel(o.core.graph_optimization_level); },
          [](SO& o, py::handle v) {
            const int level = enum_or_int<GraphOptimizationLevel>(v);
            if (level != 0 && level != 1 && level != 2 && level != 3 && level != 99)
              throw py::value_error("invalid graph_optimization_level " + std::to_string(level));
            o.core.graph_optimization_level = level;
          },
          "GraphOptimizationLevel: DISABLE_ALL runs the graph as loaded; BASIC folds constants and removes "
          "redundant nodes; EXTENDED also fuses (Gelu, SkipLayerNormalization, MultiHeadAttention, Conv+BN ...); "
          "ALL (the default) also changes layouts")
      .def_property(
          "execution_mode", [](const SO& o) { return ExecutionMode(int(o.core.execution_mode)); },
          [](SO& o, py::handle v) {
            const int mode = enum_or_int<ExecutionMode>(v);
            if (mode != 0 && mode != 1) throw py::value_error("invalid execution_mode " + std::to_string(mode));
            o.core.execution_mode = SessionOptions::ExecutionMode(mode);
          })
      .def_property(
          "execution_order", [](const SO& o) { return ExecutionOrder(o.execution_order); },
          [](SO& o, py::handle v) { o.execution_order = enum_or_int<ExecutionOrder>(v); })
      .def_property(
          "intra_op_num_threads", [](const SO& o) { return o.core.intra_op_threads; },
          [](SO& o, int n) {
            if (n < 0) throw py::value_error("intra_op_num_threads must be >= 0");
            o.core.intra_op_threads = n;
          })
      .def_property(
          "inter_op_num_threads", [](const SO& o) { return o.core.inter_op_threads; },
          [](SO& o, int n) {
            if (n < 0) throw py::value_error("inter_op_num_threads must be >= 0");
            o.core.inter_op_threads = n;
          })
      .def_property(
          "log_severity_level", [](const SO& o) { return o.log_severity_level; },
          [](SO& o, int level) { check_severity(level); o.log_severity_level = level; },
          "0 verbose, 1 info, 2 warning, 3 error, 4 fatal; -1 (default): the default logger's")
      .def_readwrite("log_verbosity_level", &SO::log_verbosity_level)
      .def_readwrite("logid", &SO::logid)
      .def_property(
          "enable_profiling", [](const SO& o) { return o.core.enable_profiling; },
          [](SO& o, bool on) { o.core.enable_profiling = on; })
      .def_property(
          "profile_file_prefix", [](const SO& o) { return o.core.profile_file_prefix; },
          [](SO& o, const std::string& prefix) { o.core.profile_file_prefix = prefix; })
      .def_readwrite("optimized_model_filepath", &SO::optimized_model_filepath)
      .def_readwrite("enable_mem_pattern", &SO::enable_mem_pattern)
      .def_readwrite("enable_mem_reuse", &SO::enable_mem_reuse)
      .def_readwrite("enable_cpu_mem_arena", &SO::enable_cpu_mem_arena)
      .def_readwrite("use_deterministic_compute", &SO::use_deterministic_compute)
      .def(
          "register_custom_ops_library",
          [](SO& o, const std::string& path) {
            if (!o.custom_ops) o.custom_ops = std::make_shared<OrtSessionOptions>();
            if (OrtStatus* st = capi::register_custom_ops_library(o.custom_ops.get(), path)) {
              const std::string message = st->message;
              const bool missing = st->code == ORT_NO_SUCHFILE;
              delete st;
              raise(missing ? OrtError::kNoSuchFile : OrtError::kFail, message);
            }
          },
          py::arg("library_path"),
          "Loads an ONNX Runtime custom-op library (a shared library with RegisterCustomOps, built "
          "against ORT's C API) and registers its operators for sessions made with these options.")
      .def(
          "add_session_config_entry",
          [](SO& o, const std::string& key, const std::string& value) {
            if (Status bad = check_session_config_entry(key, value); !bad.ok()) throw py::value_error(bad.message());
            if (!known_session_config_key(key))
              log_message(LogLevel::kWarning, o.log_level(),
                          "session config key '" + key + "' is not one onyx knows; stored, not acted on");
            o.config[key] = value;
          },
          py::arg("config_key"), py::arg("config_value"), "Stores a session config entry (key, value).")
      .def(
          "get_session_config_entry",
          [](const SO& o, const std::string& key) {
            auto it = o.config.find(key);
            if (it == o.config.end())
              throw std::runtime_error("SessionOptions does not have configuration with key: " + key);
            return it->second;
          },
          py::arg("config_key"))
      .def(
          "add_free_dimension_override_by_name",
          [](SO& o, const std::string& name, int64_t value) { o.core.add_free_dimension_override_by_name(name, value); },
          py::arg("dim_name"), py::arg("dim_value"), "Fixes the free input dims whose dim_param is dim_name.")
      .def(
          "add_free_dimension_override_by_denotation",
          [](SO& o, const std::string& denotation, int64_t value) {
            o.core.add_free_dimension_override(denotation, value);
          },
          py::arg("dim_denotation"), py::arg("dim_value"),
          "Fixes the free input dims with this denotation (DATA_BATCH, DATA_CHANNEL, ...).")
      .def(
          "add_initializer",
          [](SO& o, const std::string& name, py::handle value) {
            o.core.add_initializer(name, tensor_from_numpy(value, name));
          },
          py::arg("name"), py::arg("val"),
          "Replaces initializer `name` with a numpy array, without a copy (keep it alive and unchanged).")
      .def(
          "add_external_initializers",
          [](SO& o, const std::vector<std::string>& names, py::sequence values) {
            std::vector<Tensor> tensors;
            for (size_t i = 0; i < values.size(); ++i)
              tensors.push_back(tensor_from_numpy(values[i], i < names.size() ? names[i] : "?"));
            Status s = o.core.add_external_initializers(names, tensors);
            if (!s.ok()) raise_status(s, Phase::kLoad);
          },
          py::arg("names"), py::arg("values"), "add_initializer for each (name, value) pair.")
      .def(
          "add_external_initializers_from_files_in_memory",
          [](SO& o, const std::vector<std::string>& names, py::sequence buffers, const std::vector<int64_t>& lengths) {
            if (names.size() != buffers.size() || names.size() != lengths.size())
              throw py::value_error("add_external_initializers_from_files_in_memory: " + std::to_string(names.size()) +
                                    " names, " + std::to_string(buffers.size()) + " buffers and " +
                                    std::to_string(lengths.size()) + " lengths");
            for (size_t i = 0; i < names.size(); ++i) {
              py::buffer buffer = py::reinterpret_borrow<py::buffer>(buffers[i]);
              py::buffer_info info = buffer.request();
              const int64_t size = int64_t(info.size) * int64_t(info.itemsize);
              if (lengths[i] < 0 || lengths[i] > size)
                throw py::value_error("external data file '" + names[i] + "': length " + std::to_string(lengths[i]) +
                                      " but the buffer holds " + std::to_string(size) + " bytes");
              PyObject* owner = buffer.ptr();
              Py_INCREF(owner);  // released, with the GIL, when the last view of these bytes goes
              std::shared_ptr<void> keeper(owner, [](void* p) {
                PyGILState_STATE state = PyGILState_Ensure();
                Py_DECREF(static_cast<PyObject*>(p));
                PyGILState_Release(state);
              });
              o.core.add_external_data_file_in_memory(
                  names[i], std::make_shared<Buffer>(info.ptr, size_t(lengths[i]), std::move(keeper)));
            }
          },
          py::arg("names"), py::arg("buffers"), py::arg("lengths"),
          "Holds external-data files in memory: the model's initializers whose external data names location "
          "names[i] read buffers[i] (bytes, bytearray, numpy array: anything with the buffer protocol), without a "
          "copy. For models loaded from bytes. Keep the buffers unchanged while sessions made with these "
          "options live.")
      .def("__copy__", [](const SO& o) { return SO(o); })
      .def("__deepcopy__", [](const SO& o, py::handle) { return SO(o); });

  using RO = PyRunOptions;
  py::class_<RO>(m, "RunOptions",
                 "Options for one run(), as onnxruntime.RunOptions. terminate: set it (from any thread) to stop "
                 "the runs using these options before their next node, with a Fail error; clear it to run again. "
                 "only_execute_path_to_fetches: run only the nodes the requested outputs need. Run config entries: "
                 "'onyx.run.timeout_ms' limits a run's wall-clock time (a run past it fails with Fail); "
                 "'memory.enable_memory_arena_shrinkage' = 'cpu:0' (and/or 'gpu:0') gives the arenas' cached memory "
                 "back after the run; 'gpu_graph_id' picks the CUDA graph of a run through an IOBinding "
                 "(enable_cuda_graph; -1 runs without one). "
                 "logid names the run in its error messages; log_severity_level and log_verbosity_level are stored.")
      .def(py::init<>())
      .def_property(
          "log_severity_level", [](const RO& o) { return o.log_severity_level; },
          [](RO& o, int level) { check_severity(level); o.log_severity_level = level; })
      .def_readwrite("log_verbosity_level", &RO::log_verbosity_level)
      .def_property(
          "logid", [](const RO& o) { return o.core.tag; }, [](RO& o, const std::string& tag) { o.core.tag = tag; })
      .def_property(
          "terminate", [](const RO& o) { return o.core.terminate.load(); },
          [](RO& o, bool on) { o.core.terminate.store(on); })
      .def_property(
          "only_execute_path_to_fetches", [](const RO& o) { return o.core.only_execute_path_to_fetches; },
          [](RO& o, bool on) { o.core.only_execute_path_to_fetches = on; })
      .def(
          "add_run_config_entry",
          [](RO& o, const std::string& key, const std::string& value) {
            if (key == "memory.enable_memory_arena_shrinkage")  // "cpu:0": shrink the CPU arena after the run
              o.core.shrink_arena = value.find("cpu") != std::string::npos;
            if (key == "onyx.run.timeout_ms") {
              int64_t ms = -1;
              try {
                size_t used = 0;
                ms = std::stoll(value, &used);
                if (used != value.size()) ms = -1;
              } catch (const std::exception&) {
              }
              if (ms < 0) throw py::value_error("onyx.run.timeout_ms must be a whole number of milliseconds >= 0, got '" +
                                                value + "'");
              o.core.timeout_ms = ms;
            }
            o.core.config[key] = value;
          },
          py::arg("config_key"), py::arg("config_value"))
      .def(
          "get_run_config_entry",
          [](const RO& o, const std::string& key) {
            auto it = o.core.config.find(key);
            if (it == o.core.config.end())
              throw std::runtime_error("RunOptions does not have configuration with key: " + key);
            return it->second;
          },
          py::arg("config_key"))
      // LoRA adapters (onyx.LoraAdapter) active in runs with these options: their parameters
      // are fed as the model's overridable initializers of the same names.
      .def(
          "add_active_adapter",
          [](RO& o, py::object adapter) {
            if (!py::hasattr(adapter, "parameters"))
              throw py::type_error("add_active_adapter takes an onyx.LoraAdapter");
            o.active_adapters.append(adapter);
          },
          py::arg("adapter"))
      .def(
          "add_active_lora_adapter", [](RO& o, py::object adapter) { o.active_adapters.append(adapter); },
          py::arg("adapter"))
      .def_property_readonly("_active_adapters", [](const RO& o) { return py::list(o.active_adapters); });

  m.def(
      "set_default_logger_severity",
      [](int level) {
        if (level < 0 || level > 4)
          throw py::value_error("invalid log severity " + std::to_string(level) +
                                " (0 verbose, 1 info, 2 warning, 3 error, 4 fatal)");
        set_default_log_severity(level);
      },
      py::arg("severity"), "Sets the severity of the default logger: 0 verbose .. 4 fatal (default 2).");
  m.def("set_default_logger_verbosity", [](int) {}, py::arg("verbosity"), "Accepted; onyx has no verbose sublevels.");
}

}  // namespace onyx::python
