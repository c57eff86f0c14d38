// Environments, session options, sessions, runs and run options through the C API.
#include <chrono>
#include <cstring>

#include "capi/capi_internal.h"
#include "capi/custom_ops.h"
#include "capi/generated/api_declarations.h"
#include "core/logging.h"
#include "providers/execution_provider.h"
#include "session/session_config.h"

namespace onyx::capi {
namespace {

// SessionOptionsSetLoadCancellationFlag: creation looks at the flag before it starts and once
// the session is built, before handing it out (onyx's loader has no point to stop at midway).
bool load_cancelled(const OrtSessionOptions* options) { return options && options->load_cancelled.set.load(); }

OrtStatus* cancelled_status(const char* call) {
  return make_status(ORT_MODEL_LOAD_CANCELED, std::string(call) +
                                                  ": model loading was canceled (SessionOptionsSetLoadCancellationFlag)");
}

uint64_t wall_clock_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}

// The OrtSession for a loaded session: its names, its profiling start (`started`, when the
// options profile) and, with "session.use_env_allocators" = "1", the environment's shared
// allocators as they are now.
OrtStatus* finish_session(Result<std::unique_ptr<Session>> loaded, const OrtEnv* env, const OrtSessionOptions* options,
                          uint64_t started, OrtSession** out, const char* call) {
  if (!loaded.ok()) return to_ort_status(loaded.status());
  if (load_cancelled(options)) return cancelled_status(call);  // the built session goes with `loaded`
  auto s = std::make_unique<OrtSession>();
  s->session = std::move(loaded).value();
  for (const auto& vi : s->session->inputs())
    if (!s->session->input_has_default(vi.name)) s->input_names.push_back(vi.name);
  for (const auto& vi : s->session->outputs()) s->output_names.push_back(vi.name);
  if (options && options->core.enable_profiling) s->profiling_start_ns = started;
  if (options && env && env->allocators) {
    auto use = options->config.find("session.use_env_allocators");
    if (use != options->config.end() && use->second == "1") {
      std::lock_guard<std::mutex> lock(env->allocators->mu);
      s->env_allocators = env->allocators->entries;
    }
  }
  *out = s.release();
  return nullptr;
}

OrtStatus* name_at(const std::vector<std::string>& names, size_t index, OrtAllocator* allocator, char** value,
                   const char* call) {
  if (index >= names.size())
    return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": index " + std::to_string(index) +
                                                 " is out of range (the session has " + std::to_string(names.size()) + ")");
  return copy_to_allocator(allocator, names[index], value, call);
}

// The options a session is made with: the config entries applied, the custom-op domains
// turned into kernels.
Result<SessionOptions> resolved(const OrtEnv* env, const OrtSessionOptions* options) {
  if (!options) return SessionOptions();
  SessionOptions s = options->core;
  apply_session_config(options->config, s);
  if (!options->per_session_threads) {  // DisablePerSessionThreads: the environment's threads
    if (!env || !env->global_threads)
      return invalid_argument("the session options disable per-session threads, but the environment has no global "
                              "thread pools (make it with CreateEnvWithGlobalThreadPools)");
    s.intra_op_threads = env->global_threads->intra_op_threads;
    s.inter_op_threads = env->global_threads->inter_op_threads;
    s.denormal_as_zero = s.denormal_as_zero || env->global_threads->denormal_as_zero;
  }
  ONYX_ASSIGN_OR_RETURN(s.custom_kernels, custom_kernels_of(*options, options->config, s.log_level));
  return s;
}

const ir::ValueInfo* info_named(const std::vector<ir::ValueInfo>& all, const std::string& name) {
  for (const auto& vi : all)
    if (vi.name == name) return &vi;
  return nullptr;
}

}  // namespace

OrtStatus* ORT_API_CALL CreateEnv(OrtLoggingLevel level, const char* logid, OrtEnv** out) {
  return guarded("CreateEnv", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreateEnv");
    auto env = std::make_unique<OrtEnv>();
    env->level = level;
    env->log_id = logid ? logid : "";
    *out = env.release();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CreateEnvWithCustomLogger(OrtLoggingFunction logging_function, void* logger_param,
                                                  OrtLoggingLevel level, const char* logid, OrtEnv** out) {
  return guarded("CreateEnvWithCustomLogger", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(logging_function, "CreateEnvWithCustomLogger");
    ONYX_CAPI_REQUIRE(out, "CreateEnvWithCustomLogger");
    auto env = std::make_unique<OrtEnv>();
    env->level = level;
    env->log_id = logid ? logid : "";
    env->owns_log_sink = true;
    const std::string id = env->log_id;
    // onyx's messages (at each session's threshold) go to the caller's function from now on.
    set_log_sink([logging_function, logger_param, id](LogLevel l, const std::string& message) {
      logging_function(logger_param, OrtLoggingLevel(int(l)), "onyx", id.c_str(), "", message.c_str());
    });
    *out = env.release();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL UpdateEnvWithCustomLogLevel(OrtEnv* env, OrtLoggingLevel level) {
  ONYX_CAPI_REQUIRE(env, "UpdateEnvWithCustomLogLevel");
  // A C caller may pass any int: its bits are read as one, never as the enum (outside the
  // enum's values, reading it as the enum is undefined).
  int raw = 0;
  static_assert(sizeof raw == sizeof level);
  std::memcpy(&raw, &level, sizeof raw);
  if (raw < ORT_LOGGING_LEVEL_VERBOSE || raw > ORT_LOGGING_LEVEL_FATAL)
    return make_status(ORT_INVALID_ARGUMENT, "UpdateEnvWithCustomLogLevel: level " + std::to_string(raw));
  env->level = OrtLoggingLevel(raw);
  return nullptr;
}

void ORT_API_CALL ReleaseEnv(OrtEnv* env) {
  if (env && env->owns_log_sink) set_log_sink(nullptr);  // back to stderr
  delete env;
}

OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider(OrtSessionOptions* options, const char* provider_name,
                                                              const char* const* keys, const char* const* values,
                                                              size_t num_keys) {
  return guarded("SessionOptionsAppendExecutionProvider", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "SessionOptionsAppendExecutionProvider");
    ONYX_CAPI_REQUIRE(provider_name, "SessionOptionsAppendExecutionProvider");
    if (num_keys && (!keys || !values))
      return make_status(ORT_INVALID_ARGUMENT, "SessionOptionsAppendExecutionProvider: null option keys or values");
    const std::string name = ProviderRegistry::global().canonical(provider_name);
    if (name.empty())
      return make_status(ORT_NOT_IMPLEMENTED, std::string("SessionOptionsAppendExecutionProvider: onyx has no provider '") +
                                                  provider_name + "'");
    ProviderOptions provider_options;
    for (size_t i = 0; i < num_keys; ++i) {
      if (!keys[i] || !values[i])
        return make_status(ORT_INVALID_ARGUMENT, "SessionOptionsAppendExecutionProvider: option " + std::to_string(i) +
                                                     " has a null key or value");
      provider_options[keys[i]] = values[i];
    }
    options->core.append_provider(name, std::move(provider_options));
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CreateSessionOptions(OrtSessionOptions** out) {
  return guarded("CreateSessionOptions", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreateSessionOptions");
    *out = new OrtSessionOptions();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseSessionOptions(OrtSessionOptions* options) { delete options; }

OrtStatus* ORT_API_CALL SetIntraOpNumThreads(OrtSessionOptions* options, int n) {
  ONYX_CAPI_REQUIRE(options, "SetIntraOpNumThreads");
  if (n < 0) return make_status(ORT_INVALID_ARGUMENT, "SetIntraOpNumThreads: a negative thread count");
  options->core.intra_op_threads = n;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetInterOpNumThreads(OrtSessionOptions* options, int n) {
  ONYX_CAPI_REQUIRE(options, "SetInterOpNumThreads");
  if (n < 0) return make_status(ORT_INVALID_ARGUMENT, "SetInterOpNumThreads: a negative thread count");
  options->core.inter_op_threads = n;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetSessionGraphOptimizationLevel(OrtSessionOptions* options, GraphOptimizationLevel level) {
  ONYX_CAPI_REQUIRE(options, "SetSessionGraphOptimizationLevel");
  switch (level) {
    case ORT_DISABLE_ALL: case ORT_ENABLE_BASIC: case ORT_ENABLE_EXTENDED: case ORT_ENABLE_LAYOUT: case ORT_ENABLE_ALL:
      options->core.graph_optimization_level = int(level);
      return nullptr;
  }
  return make_status(ORT_INVALID_ARGUMENT, "SetSessionGraphOptimizationLevel: unknown level " + std::to_string(int(level)));
}

OrtStatus* ORT_API_CALL SetSessionExecutionMode(OrtSessionOptions* options, ExecutionMode mode) {
  ONYX_CAPI_REQUIRE(options, "SetSessionExecutionMode");
  if (mode != ORT_SEQUENTIAL && mode != ORT_PARALLEL)
    return make_status(ORT_INVALID_ARGUMENT, "SetSessionExecutionMode: unknown mode " + std::to_string(int(mode)));
  options->core.execution_mode =
      mode == ORT_PARALLEL ? SessionOptions::ExecutionMode::kParallel : SessionOptions::ExecutionMode::kSequential;
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateSession(const OrtEnv* env, const ORTCHAR_T* model_path, const OrtSessionOptions* options,
                                      OrtSession** out) {
  return guarded("CreateSession", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(env, "CreateSession");
    ONYX_CAPI_REQUIRE(model_path, "CreateSession");
    ONYX_CAPI_REQUIRE(out, "CreateSession");
    if (load_cancelled(options)) return cancelled_status("CreateSession");
    const uint64_t started = wall_clock_ns();
    auto settings = resolved(env, options);
    if (!settings.ok()) return to_ort_status(settings.status());
    auto loaded = Session::load_file(model_path, *settings);
    if (!loaded.ok())  // ORT's wording, which its bindings' users match on, then onyx's reason
      return make_status(ort_code_of(loaded.status().code()),
                         std::string("Load model from ") + model_path + " failed: " + loaded.status().message());
    return finish_session(std::move(loaded), env, options, started, out, "CreateSession");
  });
}

OrtStatus* ORT_API_CALL CreateSessionFromArray(const OrtEnv* env, const void* model_data, size_t model_data_length,
                                               const OrtSessionOptions* options, OrtSession** out) {
  return guarded("CreateSessionFromArray", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(env, "CreateSessionFromArray");
    if (!model_data) return make_status(ORT_INVALID_ARGUMENT, "Model data pointer is null.");
    ONYX_CAPI_REQUIRE(out, "CreateSessionFromArray");
    if (load_cancelled(options)) return cancelled_status("CreateSessionFromArray");
    const uint64_t started = wall_clock_ns();
    auto settings = resolved(env, options);
    if (!settings.ok()) return to_ort_status(settings.status());
    return finish_session(Session::load_bytes(model_data, model_data_length, *settings), env, options, started, out,
                          "CreateSessionFromArray");
  });
}

void ORT_API_CALL ReleaseSession(OrtSession* session) { delete session; }

OrtStatus* ORT_API_CALL SessionGetInputCount(const OrtSession* session, size_t* out) {
  ONYX_CAPI_REQUIRE(session, "SessionGetInputCount");
  ONYX_CAPI_REQUIRE(out, "SessionGetInputCount");
  *out = session->input_names.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL SessionGetOutputCount(const OrtSession* session, size_t* out) {
  ONYX_CAPI_REQUIRE(session, "SessionGetOutputCount");
  ONYX_CAPI_REQUIRE(out, "SessionGetOutputCount");
  *out = session->output_names.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL SessionGetInputName(const OrtSession* session, size_t index, OrtAllocator* allocator,
                                            char** value) {
  return guarded("SessionGetInputName", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "SessionGetInputName");
    ONYX_CAPI_REQUIRE(allocator, "SessionGetInputName");
    ONYX_CAPI_REQUIRE(value, "SessionGetInputName");
    return name_at(session->input_names, index, allocator, value, "SessionGetInputName");
  });
}

OrtStatus* ORT_API_CALL SessionGetOutputName(const OrtSession* session, size_t index, OrtAllocator* allocator,
                                             char** value) {
  return guarded("SessionGetOutputName", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "SessionGetOutputName");
    ONYX_CAPI_REQUIRE(allocator, "SessionGetOutputName");
    ONYX_CAPI_REQUIRE(value, "SessionGetOutputName");
    return name_at(session->output_names, index, allocator, value, "SessionGetOutputName");
  });
}

OrtStatus* ORT_API_CALL SessionGetInputTypeInfo(const OrtSession* session, size_t index, OrtTypeInfo** type_info) {
  return guarded("SessionGetInputTypeInfo", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "SessionGetInputTypeInfo");
    ONYX_CAPI_REQUIRE(type_info, "SessionGetInputTypeInfo");
    if (index >= session->input_names.size())
      return make_status(ORT_INVALID_ARGUMENT, "SessionGetInputTypeInfo: index " + std::to_string(index) + " is out of range");
    *type_info = new OrtTypeInfo(type_info_of(info_named(session->session->inputs(), session->input_names[index])->type));
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SessionGetOutputTypeInfo(const OrtSession* session, size_t index, OrtTypeInfo** type_info) {
  return guarded("SessionGetOutputTypeInfo", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "SessionGetOutputTypeInfo");
    ONYX_CAPI_REQUIRE(type_info, "SessionGetOutputTypeInfo");
    if (index >= session->output_names.size())
      return make_status(ORT_INVALID_ARGUMENT, "SessionGetOutputTypeInfo: index " + std::to_string(index) + " is out of range");
    *type_info = new OrtTypeInfo(type_info_of(session->session->output_type(index)));
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL Run(OrtSession* session, const OrtRunOptions* run_options, const char* const* input_names,
                            const OrtValue* const* inputs, size_t input_len, const char* const* output_names,
                            size_t output_names_len, OrtValue** outputs) {
  return guarded("Run", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "Run");
    ONYX_CAPI_REQUIRE(outputs, "Run");
    if (input_len && (!input_names || !inputs)) return make_status(ORT_INVALID_ARGUMENT, "Run: input names or values are null");
    if (output_names_len && !output_names) return make_status(ORT_INVALID_ARGUMENT, "Run: output names are null");
    std::vector<std::pair<std::string, Value>> feeds;
    for (size_t i = 0; i < input_len; ++i) {
      if (!input_names[i] || !inputs[i])
        return make_status(ORT_INVALID_ARGUMENT, "Run: input " + std::to_string(i) + " has a null name or value");
      // onyx's IR has no sparse tensor type: no model input can be sparse-typed.
      if (is_sparse(inputs[i]))
        return make_status(ORT_INVALID_ARGUMENT, "Run: input '" + std::string(input_names[i]) +
                                                     "' is a sparse tensor; onyx sessions take dense tensors (onyx's "
                                                     "IR has no sparse-typed model inputs)");
      feeds.emplace_back(input_names[i], inputs[i]->value);
    }
    if (OrtStatus* st = add_lora_feeds(*session, run_options, feeds)) return st;
    std::vector<std::string> wanted;
    for (size_t i = 0; i < output_names_len; ++i) {
      if (!output_names[i]) return make_status(ORT_INVALID_ARGUMENT, "Run: output name " + std::to_string(i) + " is null");
      wanted.emplace_back(output_names[i]);
    }
    auto results = session->session->run(feeds, wanted, run_options_or_defaults(run_options));
    if (!results.ok()) return to_ort_status(results.status(), ORT_INVALID_ARGUMENT);
    // A non-null outputs[i] is the caller's tensor, written in place (ORT's contract: its
    // memory, obtained before the run, holds the result after it); its dtype and shape must be
    // the result's. A null one receives a new OrtValue.
    for (size_t i = 0; i < results->size() && i < output_names_len; ++i) {
      if (!outputs[i]) continue;
      const Value& got = (*results)[i];
      Value& mine = outputs[i]->value;
      if (!mine.is_tensor() || !got.is_tensor() || mine.tensor().dtype() != got.tensor().dtype() ||
          mine.tensor().shape() != got.tensor().shape() || !mine.tensor().device().is_cpu())
        return make_status(ORT_INVALID_ARGUMENT, "Run: output '" + wanted[i] + "' is " + got.describe() +
                                                     ", but the value given for it is " + mine.describe());
      Tensor& dst = mine.tensor();
      const Tensor& src = got.tensor();
      if (dst.dtype() == DataType::kString) {
        for (int64_t k = 0; k < src.numel(); ++k) dst.data<std::string>()[k] = src.data<std::string>()[k];
      } else if (dst.raw_data() != src.raw_data() && dst.nbytes()) {
        std::memcpy(dst.raw_data(), src.raw_data(), dst.nbytes());
      }
    }
    for (size_t i = 0; i < results->size() && i < output_names_len; ++i)
      if (!outputs[i]) outputs[i] = new OrtValue{std::move((*results)[i])};
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CreateRunOptions(OrtRunOptions** out) {
  return guarded("CreateRunOptions", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreateRunOptions");
    *out = new OrtRunOptions();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseRunOptions(OrtRunOptions* options) { delete options; }

const RunOptions& run_options_or_defaults(const OrtRunOptions* options) {
  static const RunOptions kDefaults;
  return options ? options->core : kDefaults;
}

OrtStatus* ORT_API_CALL RunOptionsSetTerminate(OrtRunOptions* options) {
  ONYX_CAPI_REQUIRE(options, "RunOptionsSetTerminate");
  options->core.terminate.store(true);
  return nullptr;
}

OrtStatus* ORT_API_CALL RunOptionsUnsetTerminate(OrtRunOptions* options) {
  ONYX_CAPI_REQUIRE(options, "RunOptionsUnsetTerminate");
  options->core.terminate.store(false);
  return nullptr;
}

}  // namespace onyx::capi
