// What the C API's opaque handles are in onyx, and the helpers every src/capi file shares.
// The handles are plain structs at global scope (the header declares them as incomplete
// `struct OrtX`); each wraps onyx's own object. Nothing throws across the C boundary: each
// entry point runs its body through `guarded`, which turns an exception into an OrtStatus.
#pragma once
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
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
  // SetGlobalIntraOpThreadAffinity's string, checked and kept; not applied (sync_and_affinity.cc).
  std::string intra_op_affinity;
};

namespace onyx::capi {
// ORT's C element type codes are ONNX's TensorProto codes up to FLOAT4E2M1 (23); past it they
// differ: ORT has UINT2 = 24, INT2 = 25, FLOAT8E8M0 = 26 where ONNX has FLOAT8E8M0 = 24,
// UINT2 = 25, INT2 = 26 (onyx's DataType follows ONNX).
inline ONNXTensorElementDataType ort_element_type(DataType t) {
  switch (t) {
    case DataType::kFloat8E8M0: return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E8M0;
    case DataType::kUInt2: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT2;
    case DataType::kInt2: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT2;
    case DataType::kFloat6E2M3:
    case DataType::kFloat6E3M2: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;  // ORT's C API has no float6
    default: return ONNXTensorElementDataType(int(t));
  }
}
// The DataType of an ORT element type code; kUndefined for codes onyx does not know.
inline DataType data_type_from_ort(int code) {
  switch (code) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E8M0: return DataType::kFloat8E8M0;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT2: return DataType::kUInt2;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT2: return DataType::kInt2;
    default: return code > 0 && code <= int(DataType::kFloat4E2M1) ? DataType(code) : DataType::kUndefined;
  }
}

// The allocators an environment shares (RegisterAllocator, CreateAndRegisterAllocator(V2)),
// keyed by the memory they serve (same_memory). An entry keeps a copy of the memory info it was
// registered under; `owned` holds the allocator onyx made (the caller's own, from
// RegisterAllocator, is only pointed to: the caller keeps it alive while it is registered and
// while sessions that took it live). Sessions made with "session.use_env_allocators" = "1"
// take shared pointers to the entries at creation (allocators.cc).
struct SharedAllocator {
  std::shared_ptr<const OrtMemoryInfo> info;
  OrtAllocator* allocator = nullptr;
  std::shared_ptr<OrtAllocator> owned;  // null for a caller's allocator
};
struct EnvAllocators {
  std::mutex mu;
  std::vector<std::shared_ptr<const SharedAllocator>> entries;
};
}  // namespace onyx::capi

struct OrtEnv {
  OrtLoggingLevel level = ORT_LOGGING_LEVEL_WARNING;
  std::string log_id;
  bool owns_log_sink = false;  // CreateEnvWithCustomLogger routed onyx's messages to the caller
  std::shared_ptr<const OrtThreadingOptions> global_threads;  // CreateEnvWithGlobalThreadPools
  std::shared_ptr<onyx::capi::EnvAllocators> allocators = std::make_shared<onyx::capi::EnvAllocators>();
  // CreateEnvWithOptions' config entries: kept, not acted on (no onyx setting reads them).
  std::map<std::string, std::string> config;
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
// An atomic flag whose copies take its value (a copy of session options gets its own flag).
struct CancelFlag {
  std::atomic<bool> set{false};
  CancelFlag() = default;
  CancelFlag(const CancelFlag& other) : set(other.set.load()) {}
  CancelFlag& operator=(const CancelFlag& other) {
    set.store(other.set.load());
    return *this;
  }
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
  bool mem_pattern = true;            // Enable/DisableMemPattern: reported by GetMemPatternEnabled only
  bool deterministic_compute = false;  // SetDeterministicCompute: stored (session_extras.cc says why)
  // SessionOptionsSetLoadCancellationFlag: read while a session is made with these options
  // (session.cc); a copy of the options takes the flag's value, not the flag.
  onyx::capi::CancelFlag load_cancelled;
  // SetUserLoggingFunction: stored; onyx's messages go to the process's sink (session_extras.cc).
  OrtLoggingFunction user_logging_function = nullptr;
  void* user_logging_param = nullptr;
};

struct OrtSession {
  std::unique_ptr<onyx::Session> session;
  std::vector<std::string> input_names;  // the inputs a caller feeds (no initializer defaults)
  std::vector<std::string> output_names;
  // With profiling on: the wall clock (ns since the Unix epoch) when the session's creation
  // began, which is time zero of its trace; 0 otherwise (SessionGetProfilingStartTimeNs).
  uint64_t profiling_start_ns = 0;
  // The environment's shared allocators when the session's config said
  // "session.use_env_allocators" = "1" (taken at creation); CreateAllocator hands them out.
  std::vector<std::shared_ptr<const onyx::capi::SharedAllocator>> env_allocators;
};

namespace onyx::capi {
// A LoRA adapter's parameters (lora_adapters.cc): named CPU tensors, never changed once read;
// shared by the adapter and every run options it was made active in.
struct LoraParameters {
  std::vector<std::pair<std::string, Tensor>> params;
};
}  // namespace onyx::capi

// CreateLoraAdapter(FromArray) (lora_adapters.cc).
struct OrtLoraAdapter {
  std::shared_ptr<const onyx::capi::LoraParameters> parameters;
};

struct OrtRunOptions {
  onyx::RunOptions core;
  std::string tag;
  int log_level = 2;
  int log_verbosity = 0;  // stored for the getter; onyx's messages have no verbosity levels
  // RunOptionsAddActiveLoraAdapter: the adapters' parameters (shared, so releasing an adapter
  // before these options is safe); the C API's Run feeds them (lora_adapters.cc).
  std::vector<std::shared_ptr<const onyx::capi::LoraParameters>> active_adapters;
};

struct OrtIoBinding {
  explicit OrtIoBinding(const onyx::Session& session) : binding(session), session(&session) {}
  onyx::IoBinding binding;
  const onyx::Session* session;  // the binding's (SynchronizeBoundInputs/Outputs wait for its providers)
};

namespace onyx::capi {
struct SparseData;  // sparse_values.cc
}  // namespace onyx::capi

// A value: onyx's Value, or, where `sparse` is set, a sparse tensor (CreateSparseTensor*,
// sparse_values.cc) and `value` is none. Paths that read `value` alone see a sparse value as
// none; the members that take values say "sparse" instead (is_sparse).
struct OrtValue {
  onyx::Value value;
  std::shared_ptr<onyx::capi::SparseData> sparse = nullptr;
};

struct OrtMemoryInfo {
  std::string name;  // "Cpu", "Cuda", ...
  int id = 0;
  OrtAllocatorType type = OrtDeviceAllocator;
  OrtMemType mem_type = OrtMemTypeDefault;
  // The device's kind, vendor (PCI id; 0 for none), memory kind and alignment: given by
  // CreateMemoryInfo_V2 (`v2`), else derived from the name (memory_info_of in values.cc).
  OrtMemoryInfoDeviceType device_type = OrtMemoryInfoDeviceType_CPU;
  uint32_t vendor_id = 0;
  OrtDeviceMemoryType device_mem_type = OrtDeviceMemoryType_DEFAULT;
  size_t alignment = 0;
  bool v2 = false;
};

// An arena's settings (CreateArenaCfg, CreateArenaCfgV2); -1 (0 for max_mem) where not given.
struct OrtArenaCfg {
  size_t max_mem = 0;
  int arena_extend_strategy = -1;  // 0 kNextPowerOfTwo, 1 kSameAsRequested
  int initial_chunk_size_bytes = -1;
  int max_dead_bytes_per_chunk = -1;
  int initial_growth_chunk_size_bytes = -1;
  int64_t max_power_of_two_extend_bytes = -1;
};

// The CUDA provider's key/value options (threads_and_cuda_options.cc) and the pointer-valued
// ones of UpdateCUDAProviderOptionsWithValue (env_and_gpu.cc): the arena settings are the
// caller's, kept alive by it until the options are appended.
struct OrtCUDAProviderOptionsV2 {
  std::map<std::string, std::string> options;
  const OrtArenaCfg* arena_cfg = nullptr;
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
// The same, but with `not_found_code` for kNotFound. A run or a binding reports a feed or fetch
// under a name the model lacks as kNotFound, which is not ORT's NO_SUCHFILE (a missing file):
// ORT 1.30 gives INVALID_ARGUMENT for it in Run/RunAsync/RunWithBinding ("Invalid input name: x",
// "Invalid output name: x") and FAIL in BindInput ("Failed to find input name in the mapping").
OrtStatus* to_ort_status(const Status& status, OrtErrorCode not_found_code);
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

// A C enum argument's bits read as an int: a C caller may pass any int, and reading a value
// outside the enum's as the enum is undefined (UBSan aborts on it).
template <typename Enum>
int as_int(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int));
  int raw = 0;
  std::memcpy(&raw, &e, sizeof raw);
  return raw;
}

// A memory info by name, as CreateMemoryInfo makes it: "Cuda" is a GPU of NVIDIA's (its memory
// host-accessible for the CPU input/output memory types), "CudaPinned" host memory pinned for
// one (NVIDIA's, host-accessible); any other name is kept and described as the host's device,
// as MemoryInfoGetDeviceType always reported it (values.cc).
OrtMemoryInfo memory_info_of(const std::string& name, int id, OrtAllocatorType type, OrtMemType mem_type);
// True when `info` describes plain host memory: "Cpu" or "CPU", or a CPU device with default
// memory from CreateMemoryInfo_V2 (allocators.cc).
bool is_cpu_memory(const OrtMemoryInfo& info);
// True when `a` and `b` describe the same memory: the same device (the host for both, or the
// same device name/kind and id) and memory kind; the names' spelling and allocator type aside.
bool same_memory(const OrtMemoryInfo& a, const OrtMemoryInfo& b);
// The static description of host memory ("Cpu", device allocator, default memory type).
const OrtMemoryInfo& cpu_memory_info();

// A sparse value's C API view (sparse_values.cc): whether `value` is sparse; its dense shape
// and values' type as ORT's GetTensorTypeAndShape reports them.
inline bool is_sparse(const OrtValue* value) { return value && value->sparse != nullptr; }
OrtTensorTypeAndShapeInfo sparse_dense_info(const OrtValue& value);

// Run's feeds completed with the parameters of the adapters active in `options` (none when
// null): each must name an input of the session's model that `feeds` does not already hold
// (INVALID_ARGUMENT naming it otherwise). lora_adapters.cc.
OrtStatus* add_lora_feeds(const OrtSession& session, const OrtRunOptions* options,
                          std::vector<std::pair<std::string, Value>>& feeds);

}  // namespace onyx::capi
