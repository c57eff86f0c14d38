// What the C API's opaque handles are in onyx, and the helpers every src/capi file shares.
// The handles are plain structs at global scope (the header declares them as incomplete
// `struct OrtX`); each wraps onyx's own object. Nothing throws across the C boundary: each
// entry point runs its body through `guarded`, which turns an exception into an OrtStatus.
#pragma once
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "onnxruntime_c_api.h"
#include "session/io_binding.h"
#include "session/run_options.h"
#include "session/session.h"

struct OrtStatus {
  OrtErrorCode code;
  std::string message;
};

// The "global thread pools" of CreateEnvWithGlobalThreadPools. onyx's intra-op threads are one
// OpenMP team per process already; a session that DisablePerSessionThreads takes these counts
// and modes from its environment instead of from its own options.
struct OrtThreadingOptions {
  int intra_op_threads = 0;  // 0: one per core
  int inter_op_threads = 0;
  bool allow_spinning = true;
  bool denormal_as_zero = false;
};

struct OrtEnv {
  OrtLoggingLevel level = ORT_LOGGING_LEVEL_WARNING;
  std::string log_id;
  bool owns_log_sink = false;  // CreateEnvWithCustomLogger routed onyx's messages to the caller
  std::shared_ptr<const OrtThreadingOptions> global_threads;  // CreateEnvWithGlobalThreadPools
};

// Ordered string pairs (CreateKeyValuePairs ...): the pointer arrays GetKeyValuePairs hands out
// stay valid until the pairs change.
struct OrtKeyValuePairs {
  std::vector<std::string> keys, values;
  std::vector<const char*> key_ptrs, value_ptrs;
  void refresh() {
    key_ptrs.clear();
    value_ptrs.clear();
    for (size_t i = 0; i < keys.size(); ++i) {
      key_ptrs.push_back(keys[i].c_str());
      value_ptrs.push_back(values[i].c_str());
    }
  }
};

namespace onyx::capi {
// A custom-op domain and the ops added to it (custom_ops.h).
struct CustomOpDomainState {
  std::string domain;
  std::vector<const OrtCustomOp*> ops;  // the caller's (a library's); they must outlive sessions
};
}  // namespace onyx::capi

struct OrtSessionOptions {
  onyx::SessionOptions core;
  std::map<std::string, std::string> config;  // AddSessionConfigEntry; applied when a session is made
  std::string log_id;
  int log_verbosity = 0;  // SetSessionLogVerbosityLevel: stored, as ORT only uses it for VLOG builds
  bool per_session_threads = true;  // false after DisablePerSessionThreads: the environment's
  // AddCustomOpDomain's domains and the custom-op libraries RegisterCustomOpsLibrary(_V2)
  // opened: turned into core.custom_kernels when a session is made (custom_ops.h).
  std::vector<std::shared_ptr<onyx::capi::CustomOpDomainState>> custom_domains;
  std::vector<std::shared_ptr<void>> custom_libraries;
};

struct OrtSession {
  std::unique_ptr<onyx::Session> session;
  std::vector<std::string> input_names;  // the inputs a caller feeds (no initializer defaults)
  std::vector<std::string> output_names;
};

struct OrtRunOptions {
  onyx::RunOptions core;
  std::string tag;
  int log_level = 2;
  int log_verbosity = 0;  // stored for the getter; onyx's messages have no verbosity levels
};

struct OrtIoBinding {
  explicit OrtIoBinding(const onyx::Session& session) : binding(session) {}
  onyx::IoBinding binding;
};

struct OrtValue {
  onyx::Value value;
};

struct OrtMemoryInfo {
  std::string name;  // "Cpu", "Cuda", ...
  int id = 0;
  OrtAllocatorType type = OrtDeviceAllocator;
  OrtMemType mem_type = OrtMemTypeDefault;
};

struct OrtTensorTypeAndShapeInfo {
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::vector<int64_t> dims;          // -1 where unknown
  std::vector<std::string> symbols;   // per dim: its dim_param, or ""
  bool has_shape = true;              // false where not even the rank is known
};

// The parts of a sequence's, an optional's and a map's type (CastTypeInfoTo*TypeInfo hands out
// pointers to them inside their OrtTypeInfo; the nested types are shared, never changed).
struct OrtSequenceTypeInfo {
  std::shared_ptr<const OrtTypeInfo> element;
};
struct OrtOptionalTypeInfo {
  std::shared_ptr<const OrtTypeInfo> contained;
};
struct OrtMapTypeInfo {
  ONNXTensorElementDataType key = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::shared_ptr<const OrtTypeInfo> value;
};

struct OrtTypeInfo {
  ONNXType kind = ONNX_TYPE_UNKNOWN;
  OrtTensorTypeAndShapeInfo tensor;  // for ONNX_TYPE_TENSOR
  OrtSequenceTypeInfo sequence;      // for ONNX_TYPE_SEQUENCE
  OrtOptionalTypeInfo optional;      // for ONNX_TYPE_OPTIONAL
  OrtMapTypeInfo map;                // for ONNX_TYPE_MAP
  std::string denotation;            // the type's denotation ("" when none)
};

namespace onyx::capi {

// nullptr (success) for an OK status; otherwise a new OrtStatus with ORT's code for it.
OrtStatus* to_ort_status(const Status& status);
OrtErrorCode ort_code_of(StatusCode code);
OrtStatus* make_status(OrtErrorCode code, const std::string& message);
OrtStatus* not_implemented(const char* call);

// Runs `body` (returning OrtStatus*), turning any exception into an OrtStatus naming `call`.
template <typename Body>
OrtStatus* guarded(const char* call, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return make_status(ORT_FAIL, std::string(call) + ": out of memory");
  } catch (const std::exception& e) {
    return make_status(ORT_RUNTIME_EXCEPTION, std::string(call) + ": " + e.what());
  } catch (...) {
    return make_status(ORT_RUNTIME_EXCEPTION, std::string(call) + ": unknown exception");
  }
}

// INVALID_ARGUMENT naming the call and the null argument, when `p` is null.
#define ONYX_CAPI_REQUIRE(p, call) \
  if ((p) == nullptr) return ::onyx::capi::make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": " #p " is null")

// A type and shape from a static type (kUndefined / -1 where unknown), nested types included.
OrtTypeInfo type_info_of(const ir::TypeInfo& type);
// The type of a value: a tensor's type and shape, a sequence's element type (shape unknown), a
// map's key and value types; an empty optional as ONNX_TYPE_OPTIONAL of an unknown type.
OrtTypeInfo type_info_of_value(const Value& value);
OrtTensorTypeAndShapeInfo tensor_info_of(const Tensor& t);

// The process's default CPU allocator (GetAllocatorWithDefaultOptions): strings handed to the
// caller (input and output names) are allocated from it and freed through it.
OrtAllocator* default_allocator();
// `s` copied, NUL-terminated, into memory from `allocator` (the caller frees it there);
// errors name `call`.
OrtStatus* copy_to_allocator(OrtAllocator* allocator, const std::string& s, char** out, const char* call);
// The run options a call passes, or defaults; by reference, so that a terminate set while
// the run goes on is seen.
const RunOptions& run_options_or_defaults(const OrtRunOptions* options);

}  // namespace onyx::capi
