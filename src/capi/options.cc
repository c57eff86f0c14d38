// The session and run options onnxruntime-node and the other bindings set on every session:
// profiling, logging, memory knobs, config entries and external data held in memory.
#include <cstring>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"
#include "core/logging.h"
#include "session/session_config.h"

namespace onyx::capi {

OrtStatus* ORT_API_CALL SetOptimizedModelFilePath(OrtSessionOptions* options, const ORTCHAR_T* path) {
  ONYX_CAPI_REQUIRE(options, "SetOptimizedModelFilePath");
  ONYX_CAPI_REQUIRE(path, "SetOptimizedModelFilePath");
  options->core.optimized_model_filepath = path;
  return nullptr;
}

OrtStatus* ORT_API_CALL EnableProfiling(OrtSessionOptions* options, const ORTCHAR_T* prefix) {
  ONYX_CAPI_REQUIRE(options, "EnableProfiling");
  ONYX_CAPI_REQUIRE(prefix, "EnableProfiling");
  options->core.enable_profiling = true;
  options->core.profile_file_prefix = prefix;
  return nullptr;
}

OrtStatus* ORT_API_CALL DisableProfiling(OrtSessionOptions* options) {
  ONYX_CAPI_REQUIRE(options, "DisableProfiling");
  options->core.enable_profiling = false;
  return nullptr;
}

// Memory patterns are ORT's planner's; onyx plans its own way: recorded for
// GetMemPatternEnabled, without effect.
OrtStatus* ORT_API_CALL EnableMemPattern(OrtSessionOptions* options) {
  ONYX_CAPI_REQUIRE(options, "EnableMemPattern");
  options->mem_pattern = true;
  return nullptr;
}

OrtStatus* ORT_API_CALL DisableMemPattern(OrtSessionOptions* options) {
  ONYX_CAPI_REQUIRE(options, "DisableMemPattern");
  options->mem_pattern = false;
  return nullptr;
}

OrtStatus* ORT_API_CALL EnableCpuMemArena(OrtSessionOptions* options) {
  ONYX_CAPI_REQUIRE(options, "EnableCpuMemArena");
  options->core.enable_cpu_mem_arena = true;
  return nullptr;
}

OrtStatus* ORT_API_CALL DisableCpuMemArena(OrtSessionOptions* options) {
  ONYX_CAPI_REQUIRE(options, "DisableCpuMemArena");
  options->core.enable_cpu_mem_arena = false;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetSessionLogId(OrtSessionOptions* options, const char* logid) {
  ONYX_CAPI_REQUIRE(options, "SetSessionLogId");
  options->log_id = logid ? logid : "";
  return nullptr;
}

OrtStatus* ORT_API_CALL SetSessionLogSeverityLevel(OrtSessionOptions* options, int level) {
  ONYX_CAPI_REQUIRE(options, "SetSessionLogSeverityLevel");
  if (level < 0 || level > 4)
    return make_status(ORT_INVALID_ARGUMENT, "SetSessionLogSeverityLevel: " + std::to_string(level) +
                                                 " is not a severity (0 verbose .. 4 fatal)");
  options->core.log_level = level;
  return nullptr;
}

OrtStatus* ORT_API_CALL AddSessionConfigEntry(OrtSessionOptions* options, const char* key, const char* value) {
  return guarded("AddSessionConfigEntry", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "AddSessionConfigEntry");
    ONYX_CAPI_REQUIRE(key, "AddSessionConfigEntry");
    ONYX_CAPI_REQUIRE(value, "AddSessionConfigEntry");
    if (Status bad = check_session_config_entry(key, value); !bad.ok()) return to_ort_status(bad);
    if (!known_session_config_key(key))
      log_message(LogLevel::kWarning, options->core.log_level,
                  std::string("session config key '") + key + "' is not one onyx knows; stored, not acted on");
    options->config[key] = value;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL AddExternalInitializersFromFilesInMemory(OrtSessionOptions* options,
                                                                 const ORTCHAR_T* const* names, char* const* buffers,
                                                                 const size_t* lengths, size_t count) {
  return guarded("AddExternalInitializersFromFilesInMemory", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "AddExternalInitializersFromFilesInMemory");
    if (count && (!names || !buffers || !lengths))
      return make_status(ORT_INVALID_ARGUMENT, "AddExternalInitializersFromFilesInMemory: null arrays");
    for (size_t i = 0; i < count; ++i) {
      if (!names[i] || (!buffers[i] && lengths[i]))
        return make_status(ORT_INVALID_ARGUMENT, "AddExternalInitializersFromFilesInMemory: file " + std::to_string(i) +
                                                     " has a null name or buffer");
      // The caller's bytes, not copied: ORT's contract is that they outlive the sessions made.
      options->core.add_external_data_file_in_memory(names[i], std::make_shared<Buffer>(buffers[i], lengths[i], nullptr));
    }
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetLanguageProjection(const OrtEnv* env, OrtLanguageProjection projection) {
  ONYX_CAPI_REQUIRE(env, "SetLanguageProjection");
  (void)projection;  // telemetry in ORT; nothing to do here
  return nullptr;
}

OrtStatus* ORT_API_CALL SessionEndProfiling(OrtSession* session, OrtAllocator* allocator, char** out) {
  return guarded("SessionEndProfiling", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "SessionEndProfiling");
    ONYX_CAPI_REQUIRE(allocator, "SessionEndProfiling");
    ONYX_CAPI_REQUIRE(out, "SessionEndProfiling");
    auto file = session->session->end_profiling();
    if (!file.ok()) return to_ort_status(file.status());
    return copy_to_allocator(allocator, *file, out, "SessionEndProfiling");
  });
}

OrtStatus* ORT_API_CALL RunOptionsSetRunLogSeverityLevel(OrtRunOptions* options, int level) {
  ONYX_CAPI_REQUIRE(options, "RunOptionsSetRunLogSeverityLevel");
  if (level < 0 || level > 4)
    return make_status(ORT_INVALID_ARGUMENT, "RunOptionsSetRunLogSeverityLevel: " + std::to_string(level) +
                                                 " is not a severity (0 verbose .. 4 fatal)");
  options->log_level = level;
  return nullptr;
}

OrtStatus* ORT_API_CALL RunOptionsSetRunTag(OrtRunOptions* options, const char* tag) {
  ONYX_CAPI_REQUIRE(options, "RunOptionsSetRunTag");
  options->tag = tag ? tag : "";
  return nullptr;
}

OrtStatus* ORT_API_CALL SetSessionLogVerbosityLevel(OrtSessionOptions* options, int level) {
  ONYX_CAPI_REQUIRE(options, "SetSessionLogVerbosityLevel");
  options->log_verbosity = level;
  return nullptr;
}

OrtStatus* ORT_API_CALL RunOptionsSetRunLogVerbosityLevel(OrtRunOptions* options, int level) {
  ONYX_CAPI_REQUIRE(options, "RunOptionsSetRunLogVerbosityLevel");
  options->log_verbosity = level;
  return nullptr;
}

OrtStatus* ORT_API_CALL RunOptionsGetRunLogVerbosityLevel(const OrtRunOptions* options, int* level) {
  ONYX_CAPI_REQUIRE(options, "RunOptionsGetRunLogVerbosityLevel");
  ONYX_CAPI_REQUIRE(level, "RunOptionsGetRunLogVerbosityLevel");
  *level = options->log_verbosity;
  return nullptr;
}

OrtStatus* ORT_API_CALL RunOptionsGetRunLogSeverityLevel(const OrtRunOptions* options, int* level) {
  ONYX_CAPI_REQUIRE(options, "RunOptionsGetRunLogSeverityLevel");
  ONYX_CAPI_REQUIRE(level, "RunOptionsGetRunLogSeverityLevel");
  *level = options->log_level;
  return nullptr;
}

OrtStatus* ORT_API_CALL RunOptionsGetRunTag(const OrtRunOptions* options, const char** tag) {
  ONYX_CAPI_REQUIRE(options, "RunOptionsGetRunTag");
  ONYX_CAPI_REQUIRE(tag, "RunOptionsGetRunTag");
  *tag = options->tag.c_str();  // valid while the options live and the tag is not set again
  return nullptr;
}

OrtStatus* ORT_API_CALL AddRunConfigEntry(OrtRunOptions* options, const char* config_key, const char* config_value) {
  return guarded("AddRunConfigEntry", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "AddRunConfigEntry");
    ONYX_CAPI_REQUIRE(config_key, "AddRunConfigEntry");
    ONYX_CAPI_REQUIRE(config_value, "AddRunConfigEntry");
    if (!*config_key) return make_status(ORT_INVALID_ARGUMENT, "AddRunConfigEntry: the key is empty");
    options->core.config[config_key] = config_value;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL HasSessionConfigEntry(const OrtSessionOptions* options, const char* config_key, int* out) {
  ONYX_CAPI_REQUIRE(options, "HasSessionConfigEntry");
  ONYX_CAPI_REQUIRE(config_key, "HasSessionConfigEntry");
  ONYX_CAPI_REQUIRE(out, "HasSessionConfigEntry");
  *out = options->config.count(config_key) ? 1 : 0;
  return nullptr;
}

// The value, NUL-terminated, into the caller's `size` bytes. A null config_value asks for the
// size only; a buffer too small gets INVALID_ARGUMENT with *size the bytes needed.
OrtStatus* ORT_API_CALL GetSessionConfigEntry(const OrtSessionOptions* options, const char* config_key,
                                              char* config_value, size_t* size) {
  return guarded("GetSessionConfigEntry", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "GetSessionConfigEntry");
    ONYX_CAPI_REQUIRE(config_key, "GetSessionConfigEntry");
    ONYX_CAPI_REQUIRE(size, "GetSessionConfigEntry");
    auto it = options->config.find(config_key);
    if (it == options->config.end())
      return make_status(ORT_INVALID_ARGUMENT, std::string("GetSessionConfigEntry: no entry '") + config_key + "'");
    const size_t needed = it->second.size() + 1;
    if (!config_value) {
      *size = needed;
      return nullptr;
    }
    if (*size < needed) {
      const size_t given = *size;
      *size = needed;
      return make_status(ORT_INVALID_ARGUMENT, "GetSessionConfigEntry: the buffer holds " + std::to_string(given) +
                                                   " bytes, the value needs " + std::to_string(needed));
    }
    std::memcpy(config_value, it->second.c_str(), needed);
    *size = needed;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetSessionOptionsConfigEntries(const OrtSessionOptions* options, OrtKeyValuePairs** out) {
  return guarded("GetSessionOptionsConfigEntries", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "GetSessionOptionsConfigEntries");
    ONYX_CAPI_REQUIRE(out, "GetSessionOptionsConfigEntries");
    auto pairs = std::make_unique<OrtKeyValuePairs>();
    for (const auto& [key, value] : options->config) {
      pairs->keys.push_back(key);
      pairs->values.push_back(value);
    }
    pairs->refresh();
    *out = pairs.release();
    return nullptr;
  });
}

// The run's entry for the key, or null; valid until the entry changes or the options go.
const char* ORT_API_CALL GetRunConfigEntry(const OrtRunOptions* options, const char* config_key) {
  if (!options || !config_key) return nullptr;
  auto it = options->core.config.find(config_key);
  return it == options->core.config.end() ? nullptr : it->second.c_str();
}

}  // namespace onyx::capi
