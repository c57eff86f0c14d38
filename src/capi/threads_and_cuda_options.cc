// Global thread settings (OrtThreadingOptions, CreateEnvWithGlobalThreadPools,
// DisablePerSessionThreads) and the CUDA provider's options in ORT's two forms (the
// OrtCUDAProviderOptions struct and the key/value OrtCUDAProviderOptionsV2), which the bindings
// use to ask for a GPU. Both CUDA forms end in the provider options of
// SessionOptionsAppendExecutionProvider("CUDA", ...): onyx's CUDA provider acts on device_id,
// gpu_mem_limit and enable_cuda_graph and accepts ORT's other keys. An OrtArenaCfg given with
// them sets gpu_mem_limit (its max_mem) and arena_extend_strategy.
#include <climits>
#include <cstdint>
#include <cstring>
#include <map>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"
#include "core/logging.h"
#include "providers/execution_provider.h"

namespace onyx::capi {

// Threads.

OrtStatus* ORT_API_CALL CreateThreadingOptions(OrtThreadingOptions** out) {
  return guarded("CreateThreadingOptions", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreateThreadingOptions");
    *out = new OrtThreadingOptions();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseThreadingOptions(OrtThreadingOptions* options) { delete options; }

OrtStatus* ORT_API_CALL SetGlobalIntraOpNumThreads(OrtThreadingOptions* options, int n) {
  ONYX_CAPI_REQUIRE(options, "SetGlobalIntraOpNumThreads");
  if (n < 0) return make_status(ORT_INVALID_ARGUMENT, "SetGlobalIntraOpNumThreads: a negative thread count");
  options->intra_op_threads = n;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetGlobalInterOpNumThreads(OrtThreadingOptions* options, int n) {
  ONYX_CAPI_REQUIRE(options, "SetGlobalInterOpNumThreads");
  if (n < 0) return make_status(ORT_INVALID_ARGUMENT, "SetGlobalInterOpNumThreads: a negative thread count");
  options->inter_op_threads = n;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetGlobalSpinControl(OrtThreadingOptions* options, int allow_spinning) {
  ONYX_CAPI_REQUIRE(options, "SetGlobalSpinControl");
  if (allow_spinning != 0 && allow_spinning != 1)
    return make_status(ORT_INVALID_ARGUMENT, "SetGlobalSpinControl: allow_spinning must be 0 or 1");
  options->allow_spinning = allow_spinning == 1;  // kept; OpenMP's wait policy is the process's
  return nullptr;
}

OrtStatus* ORT_API_CALL SetGlobalDenormalAsZero(OrtThreadingOptions* options) {
  ONYX_CAPI_REQUIRE(options, "SetGlobalDenormalAsZero");
  options->denormal_as_zero = true;
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateEnvWithGlobalThreadPools(OrtLoggingLevel level, const char* logid,
                                                       const OrtThreadingOptions* threads, OrtEnv** out) {
  return guarded("CreateEnvWithGlobalThreadPools", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreateEnvWithGlobalThreadPools");
    auto env = std::make_unique<OrtEnv>();
    env->level = level;
    env->log_id = logid ? logid : "";
    env->global_threads = std::make_shared<const OrtThreadingOptions>(threads ? *threads : OrtThreadingOptions());
    *out = env.release();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CreateEnvWithCustomLoggerAndGlobalThreadPools(OrtLoggingFunction logging_function,
                                                                      void* logger_param, OrtLoggingLevel level,
                                                                      const char* logid,
                                                                      const struct OrtThreadingOptions* threads,
                                                                      OrtEnv** out) {
  return guarded("CreateEnvWithCustomLoggerAndGlobalThreadPools", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreateEnvWithCustomLoggerAndGlobalThreadPools");
    OrtEnv* env = nullptr;
    if (OrtStatus* failed = CreateEnvWithCustomLogger(logging_function, logger_param, level, logid, &env)) return failed;
    env->global_threads = std::make_shared<const OrtThreadingOptions>(threads ? *threads : OrtThreadingOptions());
    *out = env;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL DisablePerSessionThreads(OrtSessionOptions* options) {
  ONYX_CAPI_REQUIRE(options, "DisablePerSessionThreads");
  options->per_session_threads = false;
  return nullptr;
}

// The CUDA provider's options.

OrtStatus* ORT_API_CALL CreateCUDAProviderOptions(OrtCUDAProviderOptionsV2** out) {
  return guarded("CreateCUDAProviderOptions", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreateCUDAProviderOptions");
    // As ORT's builds without CUDA refuse it: bindings (onnxruntime_go) read this as "no CUDA".
    if (ProviderRegistry::global().canonical("CUDA").empty())
      return make_status(ORT_FAIL, "CreateCUDAProviderOptions: the CUDA execution provider is not enabled in this build");
    *out = new OrtCUDAProviderOptionsV2();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL UpdateCUDAProviderOptions(OrtCUDAProviderOptionsV2* cuda_options, const char* const* keys,
                                                  const char* const* values, size_t num_keys) {
  return guarded("UpdateCUDAProviderOptions", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(cuda_options, "UpdateCUDAProviderOptions");
    if (num_keys && (!keys || !values))
      return make_status(ORT_INVALID_ARGUMENT, "UpdateCUDAProviderOptions: null keys or values");
    std::map<std::string, std::string> updated = cuda_options->options;  // all or nothing
    for (size_t i = 0; i < num_keys; ++i) {
      if (!keys[i] || !values[i] || !*keys[i])
        return make_status(ORT_INVALID_ARGUMENT, "UpdateCUDAProviderOptions: option " + std::to_string(i) +
                                                     " has a null or empty key or a null value");
      // A device is named only where one can be used, as ORT checks device_id against the
      // devices present (a CUDA build on a machine without a usable GPU refuses it).
      if (std::strcmp(keys[i], "device_id") == 0) {
        Status usable = ProviderRegistry::global().available("CUDA");
        if (!usable.ok())
          return make_status(ORT_INVALID_ARGUMENT, std::string("UpdateCUDAProviderOptions: device_id ") + values[i] +
                                                       ": no usable CUDA device (" + usable.message() + ")");
      }
      updated[keys[i]] = values[i];
    }
    cuda_options->options = std::move(updated);
    return nullptr;
  });
}

// "key1=value1;key2=value2", keys in order.
OrtStatus* ORT_API_CALL GetCUDAProviderOptionsAsString(const OrtCUDAProviderOptionsV2* cuda_options,
                                                       OrtAllocator* allocator, char** ptr) {
  return guarded("GetCUDAProviderOptionsAsString", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(cuda_options, "GetCUDAProviderOptionsAsString");
    std::string text;
    for (const auto& [key, value] : cuda_options->options) text += (text.empty() ? "" : ";") + key + "=" + value;
    return copy_to_allocator(allocator, text, ptr, "GetCUDAProviderOptionsAsString");
  });
}

void ORT_API_CALL ReleaseCUDAProviderOptions(OrtCUDAProviderOptionsV2* cuda_options) { delete cuda_options; }

OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_CUDA_V2(OrtSessionOptions* options,
                                                                      const OrtCUDAProviderOptionsV2* cuda_options) {
  return guarded("SessionOptionsAppendExecutionProvider_CUDA_V2", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "SessionOptionsAppendExecutionProvider_CUDA_V2");
    ONYX_CAPI_REQUIRE(cuda_options, "SessionOptionsAppendExecutionProvider_CUDA_V2");
    // An arena configuration (UpdateCUDAProviderOptionsWithValue "default_memory_arena_cfg", or
    // the struct's default_memory_arena_cfg) overrides gpu_mem_limit and arena_extend_strategy,
    // as in ORT; its other settings describe ORT's BFC arena and have no counterpart in onyx's.
    std::map<std::string, std::string> kv = cuda_options->options;
    if (const OrtArenaCfg* arena = cuda_options->arena_cfg) {
      if (arena->max_mem) kv["gpu_mem_limit"] = std::to_string(arena->max_mem);
      if (arena->arena_extend_strategy == 0 || arena->arena_extend_strategy == 1)
        kv["arena_extend_strategy"] = arena->arena_extend_strategy == 1 ? "kSameAsRequested" : "kNextPowerOfTwo";
    }
    std::vector<const char*> keys, values;
    for (const auto& [key, value] : kv) {
      keys.push_back(key.c_str());
      values.push_back(value.c_str());
    }
    return SessionOptionsAppendExecutionProvider(options, "CUDA", keys.data(), values.data(), keys.size());
  });
}

// The struct form, as key/value options (gpu_mem_limit's SIZE_MAX means no limit, as in ORT).
OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_CUDA(OrtSessionOptions* options,
                                                                   const OrtCUDAProviderOptions* cuda_options) {
  return guarded("SessionOptionsAppendExecutionProvider_CUDA", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "SessionOptionsAppendExecutionProvider_CUDA");
    ONYX_CAPI_REQUIRE(cuda_options, "SessionOptionsAppendExecutionProvider_CUDA");
    if (cuda_options->has_user_compute_stream)
      return make_status(ORT_NOT_IMPLEMENTED, "SessionOptionsAppendExecutionProvider_CUDA: a user compute stream "
                                              "(onyx's CUDA provider runs on a stream of its own)");
    static const char* const kSearch[] = {"EXHAUSTIVE", "HEURISTIC", "DEFAULT"};
    int search = 0;  // the caller's bits as an int (an enum read outside its values is undefined)
    static_assert(sizeof search == sizeof cuda_options->cudnn_conv_algo_search);
    std::memcpy(&search, &cuda_options->cudnn_conv_algo_search, sizeof search);
    std::map<std::string, std::string> kv = {
        {"device_id", std::to_string(cuda_options->device_id)},
        {"arena_extend_strategy", cuda_options->arena_extend_strategy == 1 ? "kSameAsRequested" : "kNextPowerOfTwo"},
        {"do_copy_in_default_stream", std::to_string(cuda_options->do_copy_in_default_stream)},
        {"cudnn_conv_algo_search", search >= 0 && search < 3 ? kSearch[search] : "EXHAUSTIVE"},
    };
    if (cuda_options->gpu_mem_limit != SIZE_MAX) kv["gpu_mem_limit"] = std::to_string(cuda_options->gpu_mem_limit);
    OrtCUDAProviderOptionsV2 v2;
    v2.options = std::move(kv);
    v2.arena_cfg = cuda_options->default_memory_arena_cfg;
    return SessionOptionsAppendExecutionProvider_CUDA_V2(options, &v2);
  });
}

}  // namespace onyx::capi
