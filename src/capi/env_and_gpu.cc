// Environments from OrtEnvCreationOptions, the calling thread's current GPU, and the
// pointer-valued options of the CUDA provider.
//
// Contracts:
// - CreateEnvWithOptions: `version` must be 1..ORT_API_VERSION (every field of the struct exists
//   from its first version); logging_severity_level 0..4; a null log_id is "". A logging
//   function makes it as CreateEnvWithCustomLogger does, threading options as
//   CreateEnvWithGlobalThreadPools does (a copy is kept); the config entries are copied into the
//   environment and not acted on (no onyx setting reads them).
// - SetCurrentGpuDeviceId / GetCurrentGpuDeviceId: cudaSetDevice / cudaGetDevice for the calling
//   thread in a build with CUDA (a CUDA error is ORT_FAIL naming the call and CUDA's message);
//   NOT_IMPLEMENTED naming CUDA in a build without it. A negative id is INVALID_ARGUMENT.
// - UpdateCUDAProviderOptionsWithValue / GetCUDAProviderOptionsByName: the pointer-valued keys.
//   "default_memory_arena_cfg" keeps the caller's OrtArenaCfg (alive until the options are
//   appended; its max_mem and arena_extend_strategy then override the provider's gpu_mem_limit
//   and arena_extend_strategy). "user_compute_stream": only null is accepted (onyx's CUDA
//   provider runs on a stream of its own), and null is what it reads back. Other keys take
//   strings (UpdateCUDAProviderOptions, GetCUDAProviderOptionsAsString): INVALID_ARGUMENT.
#include <cstring>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"

#if defined(ONYX_WITH_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace onyx::capi {

OrtStatus* ORT_API_CALL CreateEnvWithOptions(const OrtEnvCreationOptions* options, OrtEnv** out) {
  return guarded("CreateEnvWithOptions", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "CreateEnvWithOptions");
    ONYX_CAPI_REQUIRE(out, "CreateEnvWithOptions");
    if (options->version == 0 || options->version > ORT_API_VERSION)
      return make_status(ORT_INVALID_ARGUMENT, "CreateEnvWithOptions: version " + std::to_string(options->version) +
                                                   " (1 to " + std::to_string(ORT_API_VERSION) + ")");
    const int32_t level = options->logging_severity_level;
    if (level < ORT_LOGGING_LEVEL_VERBOSE || level > ORT_LOGGING_LEVEL_FATAL)
      return make_status(ORT_INVALID_ARGUMENT, "CreateEnvWithOptions: logging_severity_level " + std::to_string(level) +
                                                   " is not a severity (0 verbose .. 4 fatal)");
    OrtEnv* env = nullptr;
    OrtStatus* made = options->custom_logging_function
                          ? CreateEnvWithCustomLogger(options->custom_logging_function, options->custom_logging_param,
                                                      OrtLoggingLevel(level), options->log_id, &env)
                          : CreateEnv(OrtLoggingLevel(level), options->log_id, &env);
    if (made) return made;
    std::unique_ptr<OrtEnv, void (*)(OrtEnv*)> owned(env, ReleaseEnv);
    if (options->threading_options)
      env->global_threads = std::make_shared<const OrtThreadingOptions>(*options->threading_options);
    if (const OrtKeyValuePairs* entries = options->config_entries)
      for (size_t i = 0; i < entries->keys.size(); ++i) env->config[entries->keys[i]] = entries->values[i];
    *out = owned.release();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetCurrentGpuDeviceId(int device_id) {
  if (device_id < 0)
    return make_status(ORT_INVALID_ARGUMENT, "SetCurrentGpuDeviceId: device id " + std::to_string(device_id) + " is negative");
#if defined(ONYX_WITH_CUDA)
  const cudaError_t e = cudaSetDevice(device_id);
  if (e != cudaSuccess) {
    cudaGetLastError();  // not left for the next CUDA call to report
    return make_status(ORT_FAIL, "SetCurrentGpuDeviceId: cudaSetDevice(" + std::to_string(device_id) +
                                     "): " + cudaGetErrorString(e));
  }
  return nullptr;
#else
  return make_status(ORT_NOT_IMPLEMENTED, "SetCurrentGpuDeviceId: this onyx was built without CUDA");
#endif
}

OrtStatus* ORT_API_CALL GetCurrentGpuDeviceId(int* device_id) {
  ONYX_CAPI_REQUIRE(device_id, "GetCurrentGpuDeviceId");
#if defined(ONYX_WITH_CUDA)
  int current = -1;
  const cudaError_t e = cudaGetDevice(&current);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return make_status(ORT_FAIL, std::string("GetCurrentGpuDeviceId: cudaGetDevice: ") + cudaGetErrorString(e));
  }
  *device_id = current;
  return nullptr;
#else
  return make_status(ORT_NOT_IMPLEMENTED, "GetCurrentGpuDeviceId: this onyx was built without CUDA");
#endif
}

namespace {

OrtStatus* string_valued(const char* key, const char* call) {
  return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": '" + key +
                                               "' is not a pointer-valued CUDA option (those are user_compute_stream and "
                                               "default_memory_arena_cfg; the others are strings: "
                                               "UpdateCUDAProviderOptions, GetCUDAProviderOptionsAsString)");
}

}  // namespace

OrtStatus* ORT_API_CALL UpdateCUDAProviderOptionsWithValue(OrtCUDAProviderOptionsV2* cuda_options, const char* key,
                                                           void* value) {
  return guarded("UpdateCUDAProviderOptionsWithValue", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(cuda_options, "UpdateCUDAProviderOptionsWithValue");
    ONYX_CAPI_REQUIRE(key, "UpdateCUDAProviderOptionsWithValue");
    if (std::strcmp(key, "default_memory_arena_cfg") == 0) {
      cuda_options->arena_cfg = static_cast<const OrtArenaCfg*>(value);  // the caller's; null clears it
      return nullptr;
    }
    if (std::strcmp(key, "user_compute_stream") == 0) {
      if (!value) return nullptr;  // no stream of the caller's: what onyx does anyway
      return make_status(ORT_NOT_IMPLEMENTED, "UpdateCUDAProviderOptionsWithValue: a user compute stream (onyx's CUDA "
                                              "provider runs on a stream of its own)");
    }
    return string_valued(key, "UpdateCUDAProviderOptionsWithValue");
  });
}

OrtStatus* ORT_API_CALL GetCUDAProviderOptionsByName(const OrtCUDAProviderOptionsV2* cuda_options, const char* key,
                                                     void** ptr) {
  return guarded("GetCUDAProviderOptionsByName", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(cuda_options, "GetCUDAProviderOptionsByName");
    ONYX_CAPI_REQUIRE(key, "GetCUDAProviderOptionsByName");
    ONYX_CAPI_REQUIRE(ptr, "GetCUDAProviderOptionsByName");
    if (std::strcmp(key, "default_memory_arena_cfg") == 0) {
      *ptr = const_cast<OrtArenaCfg*>(cuda_options->arena_cfg);
      return nullptr;
    }
    if (std::strcmp(key, "user_compute_stream") == 0) {
      *ptr = nullptr;  // never one of the caller's
      return nullptr;
    }
    return string_valued(key, "GetCUDAProviderOptionsByName");
  });
}

}  // namespace onyx::capi
