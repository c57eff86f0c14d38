// Shared declarations of the pybind11 module onyx._onyx: errors, value conversion, options.
// The module mirrors onnxruntime.capi.onnxruntime_pybind11_state; the pure-Python package
// python/onyx builds ORT's public classes (InferenceSession, NodeArg, ...) on top of it.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "ir/graph.h"
#include "session/session.h"

struct OrtSessionOptions;  // the C API's (src/capi/capi_internal.h)

namespace onyx::python {

namespace py = pybind11;

// ONNX Runtime's error categories, numbered as its StatusCode (FAIL = 1 ... EP_FAIL = 11).
enum class OrtError {
  kFail = 1,
  kInvalidArgument,
  kNoSuchFile,
  kNoModel,
  kEngineError,
  kRuntimeException,
  kInvalidProtobuf,
  kModelLoaded,
  kNotImplemented,
  kInvalidGraph,
  kEPFail,
};

// Creates the exception classes (Fail, InvalidArgument, ...) as attributes of `m`.
void register_errors(py::module_& m);
// Raises the Python exception of `kind` with ORT's message layout
// "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : message". Needs the GIL.
[[noreturn]] void raise(OrtError kind, const std::string& message);

// Where a failing Status came from: the same onyx code maps to different ORT categories
// (NOT_FOUND at load is a missing file, NoSuchFile; at run a bad name, InvalidArgument).
enum class Phase { kLoad, kRun };
OrtError classify(const Status& status, Phase phase);
[[noreturn]] void raise_status(const Status& status, Phase phase);

// ONNX type strings as ORT's NodeArg.type writes them: "tensor(float)", "seq(tensor(int64))".
std::string type_string(const ir::TypeInfo& type);
// ORT's NodeArg.shape: ints, strings for symbolic dims, None for unknown; [] when no shape.
py::list shape_list(const ir::TypeInfo& type);

// Converts a Python feed to a Value for a graph input declared as `declared`. numpy arrays
// that are C-contiguous, aligned and native-endian are wrapped without a copy (the Tensor
// keeps the array alive); anything else goes through numpy.asarray / a contiguous copy.
// A dtype, rank or dim that does not match the declaration raises InvalidArgument.
Value value_from_python(py::handle obj, const ir::ValueInfo& declared);
// Converts an output to Python: tensors to numpy arrays (string tensors to object arrays of
// str), sequences to lists, none to None. `may_share`: the array may point into the
// tensor's buffer (kept alive by the array) instead of copying it.
py::object value_to_python(const Value& value, bool may_share);
// Imports numpy and builds the dtype table; called once at module import, so that no thread
// first touches them in the middle of a run (a function-local static initialised under the
// GIL can deadlock against another thread waiting for the GIL).
void init_values();

// The default logger severity (set_default_logger_severity); sessions whose
// log_severity_level is -1 use it.
int default_log_severity();
void set_default_log_severity(int level);

// A numpy array (or anything numpy.asarray takes) as a tensor, wrapped without a copy when
// the layout allows (the tensor keeps the array alive); for initializer overrides.
Tensor tensor_from_numpy(py::handle obj, const std::string& name);

// SessionOptions as ORT has it: the knobs onyx acts on live in `core`; the rest are kept so
// that scripts setting them keep working and read back what they set.
struct PySessionOptions {
  PySessionOptions() { core.profile_file_prefix = "onnxruntime_profile_"; }  // ORT's default
  SessionOptions core;
  int log_severity_level = -1;  // -1: the default logger's severity
  int log_verbosity_level = 0;
  std::string logid;
  std::string optimized_model_filepath;
  bool enable_mem_pattern = true;
  bool enable_mem_reuse = true;
  bool enable_cpu_mem_arena = true;
  bool use_deterministic_compute = false;
  int execution_order = 0;  // ExecutionOrder.DEFAULT
  std::map<std::string, std::string> config;
  // The custom-op domains and libraries register_custom_ops_library added, held as the C
  // API's session options hold them (src/capi/custom_ops.h); null until the first.
  std::shared_ptr<OrtSessionOptions> custom_ops;
  // log_severity_level, or the default logger's when it is -1.
  int log_level() const { return log_severity_level >= 0 ? log_severity_level : default_log_severity(); }
  // The options a session is created with: log level resolved against the default, custom
  // ops as kernels. Raises (the GIL held) when a custom op cannot be registered.
  SessionOptions resolved() const;
};

struct PyRunOptions {
  RunOptions core;  // terminate (atomic: set from any thread), only_execute_path_to_fetches, config
  int log_severity_level = -1;
  int log_verbosity_level = 0;
  py::list active_adapters;  // onyx.LoraAdapter objects (add_active_adapter); touched under the GIL only
};

// A numpy array (or anything numpy.asarray takes) as a tensor of `expected` (kUndefined: its
// own dtype; uint16 arrays are taken as bfloat16 bits where bfloat16 is expected), wrapped
// without a copy when the layout allows.
Tensor tensor_from_python(py::handle obj, DataType expected, const std::string& name);
// The numpy dtype of onyx's element type (bfloat16: uint16 bit patterns).
const py::dtype& numpy_dtype(DataType t);
// The onyx element type of a numpy dtype (or anything numpy.dtype takes); kUndefined if none.
DataType data_type_of_numpy(const py::dtype& dt);

// The device ORT's (device_type, device_id) names: "cpu" (id 0) or "cuda"/"gpu" (any id; in a
// build with the CUDA provider, EPFail otherwise). `what` starts the message of the error.
Device device_arg(const std::string& device_type, int device_id, const std::string& what);
// ORT's device_type name of `d` ("cpu", "cuda").
std::string device_type_name(const Device& d);
// The module's own provider of `device` (made on first use, kept for the process), for
// tensors made, read or imported outside a session. EPFail when it cannot be made here (no
// device, no driver): `what` starts the message.
ExecutionProvider& device_provider(const Device& device, const std::string& what);
// The same without raising (safe without the GIL): the error as a Status.
Result<ExecutionProvider*> find_device_provider(const Device& device);
// `t` itself when it is on the host, else a host copy of it (the device's work finished).
Tensor on_host(const Tensor& t, const std::string& what);
// The element type an `element_type` argument names: a numpy type or dtype (np.float32) or
// an ONNX TensorProto data type number (1 = float); InvalidArgument otherwise.
DataType element_type_arg(py::handle element_type, const std::string& what);

// OrtValue (onnxruntime.OrtValue): one value, held without copies. Tensors made from numpy
// arrays keep the array alive; outputs keep the run's buffer alive.
struct PyOrtValue {
  Value value;
  // A sparse tensor (onyx.SparseTensor, a Python object) when made by
  // ort_value_from_sparse_tensor; `value` is then none. Released under the GIL (shared_ptr
  // copies need none).
  std::shared_ptr<py::object> sparse = nullptr;
};

// ONNX Runtime's OrtValueVector: the OrtValues a C-level run_with_ort_values returns, in order.
struct PyOrtValueVector {
  std::vector<PyOrtValue> values;
};

// The C-level session (onyx.capi.onnxruntime_pybind11_state.InferenceSession).
class PySession {
 public:
  // `model` is a path (str) when `is_path`, else the serialized ModelProto (bytes).
  // `providers`: (name, options) in priority order (SessionOptions::providers); empty: the CPU.
  // `disabled_optimizers`: passes not to run (SessionOptions::disabled_optimizers).
  PySession(const PySessionOptions& options, py::handle model, bool is_path,
            const std::vector<std::pair<std::string, std::map<std::string, std::string>>>& providers = {},
            const std::vector<std::string>& disabled_optimizers = {});
  py::list run(py::object output_names, py::dict input_feed, py::object run_options) const;
  // As run, with OrtValue feeds and OrtValue results (no numpy conversion either way).
  PyOrtValueVector run_with_ort_values(py::dict input_feed, py::object output_names, py::object run_options) const;
  py::list input_args(bool overridable) const;
  py::list output_args() const;
  py::dict modelmeta() const;
  const PySessionOptions& options() const { return options_; }
  std::string end_profiling();
  const Session& session() const { return *session_; }
  // The input named `name` or InvalidArgument naming the inputs.
  const ir::ValueInfo& input(const std::string& name) const;
  std::vector<std::string> output_names(py::object names) const;  // None -> {}; unknown raises

 private:
  std::string names(bool outputs) const;
  // Checks that every required input is fed, runs with the GIL released, raises on failure.
  std::vector<Value> run_checked(const std::vector<std::pair<std::string, Value>>& feeds, py::object output_names,
                                 py::object run_options) const;
  PySessionOptions options_;
  std::unique_ptr<Session> session_;
  std::unordered_map<std::string, size_t> input_index_, output_index_;
};

// The RunOptions of a run() call: `obj` is None or a RunOptions.
const RunOptions& run_options_of(py::handle obj);

void register_options(py::module_& m);
void register_session(py::module_& m);
void register_ortvalue(py::module_& m);
void register_io_binding(py::module_& m);
// OrtValueVector, is_dlpack_uint8_tensor.
void register_ortvalue_vector(py::module_& m);
// set_default_logger_callback; flush_log_messages hands queued messages to the callback
// (call with the GIL held, after an API call that may log).
void register_logging(py::module_& m);
// _make_training_models (onyx.training).
void register_training(py::module_& m);
void flush_log_messages();

}  // namespace onyx::python
