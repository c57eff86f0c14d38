// Session and session-option members beyond the basic ones: getters of options, profiling's
// start, where inputs and outputs live, load cancellation, prepacked-weight containers,
// asynchronous runs and per-run profiling.
//
// Contracts:
// - SessionGetProfilingStartTimeNs: for a session made with profiling on, the wall clock in ns
//   since the Unix epoch when its creation began, which is time zero of its trace (up to the
//   microseconds between the C API's call and the session's own start); 0 without profiling.
// - SessionGetMemoryInfoForInputs/Outputs: host memory ("Cpu") for every input and output. Run
//   takes its inputs from, and returns its outputs in, host memory whatever the providers;
//   values cross to a device inside the run. The pointers are static: valid for the process.
// - SetDeterministicCompute: stored. onyx has no kernel with a faster non-deterministic variant
//   to switch off, so the flag changes nothing.
// - SessionOptionsSetLoadCancellationFlag: a session being made with these options looks at the
//   flag before it starts and once it is built (onyx's loader has no point to stop at midway);
//   set, the creation fails with ORT_MODEL_LOAD_CANCELED naming the cancellation and no session
//   is handed out. Clear it to make sessions again.
// - Prepacked weights containers: accepted, and sessions are made as CreateSession(FromArray)
//   makes them. onyx cannot share packed weights between sessions: each session packs its own
//   (MatMul, Gemm, convolutions) and the container stays empty.
// - RunAsync: checks its arguments, copies the input names and values (the values share their
//   data, which must stay unchanged until the callback) and the output names, then runs on a
//   thread of its own (not a pool) as Run does. The callback gets the caller's output array,
//   its nulls filled with new values and preallocated ones written in place, and
//   output_names_len; on error it gets a null array, 0 and the status. As ORT's documentation
//   states, the caller owns the output array and every value in it, whoever made them; the
//   status (null on success) is the callback's to release. The session, the run options (when
//   given: a terminate set on them stops the run) and the output array must outlive the
//   callback. Errors found before the thread starts are returned and the callback is not called.
// - RunOptionsEnableProfiling: NOT_IMPLEMENTED. onyx profiles whole sessions (EnableProfiling on
//   the session options, SessionEndProfiling), not single runs. RunOptionsDisableProfiling
//   succeeds: a single run is never profiled on its own.
// - SetUserLoggingFunction: stored. onyx's session messages go to the process's sink (stderr, or
//   the function of CreateEnvWithCustomLogger), not to a function per session.
#include <thread>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"

struct OrtPrepackedWeightsContainer {};  // holds nothing: see the contracts above

namespace onyx::capi {

OrtStatus* ORT_API_CALL SessionGetProfilingStartTimeNs(const OrtSession* session, uint64_t* out) {
  ONYX_CAPI_REQUIRE(session, "SessionGetProfilingStartTimeNs");
  ONYX_CAPI_REQUIRE(out, "SessionGetProfilingStartTimeNs");
  *out = session->profiling_start_ns;
  return nullptr;
}

namespace {

OrtStatus* host_memory_for_all(size_t have, const OrtMemoryInfo** infos, size_t count, const char* what,
                               const char* call) {
  if (count != have)
    return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": room for " + std::to_string(count) + " " + what +
                                                 ", the session has " + std::to_string(have));
  if (count && !infos) return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": the array is null");
  for (size_t i = 0; i < count; ++i) infos[i] = &cpu_memory_info();
  return nullptr;
}

}  // namespace

OrtStatus* ORT_API_CALL SessionGetMemoryInfoForInputs(const OrtSession* session, const OrtMemoryInfo** inputs_memory_info,
                                                      size_t num_inputs) {
  ONYX_CAPI_REQUIRE(session, "SessionGetMemoryInfoForInputs");
  return host_memory_for_all(session->input_names.size(), inputs_memory_info, num_inputs, "inputs",
                             "SessionGetMemoryInfoForInputs");
}

OrtStatus* ORT_API_CALL SessionGetMemoryInfoForOutputs(const OrtSession* session,
                                                       const OrtMemoryInfo** outputs_memory_info, size_t num_outputs) {
  ONYX_CAPI_REQUIRE(session, "SessionGetMemoryInfoForOutputs");
  return host_memory_for_all(session->output_names.size(), outputs_memory_info, num_outputs, "outputs",
                             "SessionGetMemoryInfoForOutputs");
}

// Session options.

OrtStatus* ORT_API_CALL GetMemPatternEnabled(const OrtSessionOptions* options, int* out) {
  ONYX_CAPI_REQUIRE(options, "GetMemPatternEnabled");
  ONYX_CAPI_REQUIRE(out, "GetMemPatternEnabled");
  *out = options->mem_pattern ? 1 : 0;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetSessionExecutionMode(const OrtSessionOptions* options, ExecutionMode* out) {
  ONYX_CAPI_REQUIRE(options, "GetSessionExecutionMode");
  ONYX_CAPI_REQUIRE(out, "GetSessionExecutionMode");
  *out = options->core.execution_mode == SessionOptions::ExecutionMode::kParallel ? ORT_PARALLEL : ORT_SEQUENTIAL;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetDeterministicCompute(OrtSessionOptions* options, bool value) {
  ONYX_CAPI_REQUIRE(options, "SetDeterministicCompute");
  options->deterministic_compute = value;
  return nullptr;
}

OrtStatus* ORT_API_CALL SessionOptionsSetLoadCancellationFlag(OrtSessionOptions* options, bool cancel) {
  ONYX_CAPI_REQUIRE(options, "SessionOptionsSetLoadCancellationFlag");
  options->load_cancelled.set.store(cancel);
  return nullptr;
}

OrtStatus* ORT_API_CALL SetUserLoggingFunction(OrtSessionOptions* options, OrtLoggingFunction user_logging_function,
                                               void* user_logging_param) {
  ONYX_CAPI_REQUIRE(options, "SetUserLoggingFunction");
  options->user_logging_function = user_logging_function;  // null: none
  options->user_logging_param = user_logging_param;
  return nullptr;
}

// Prepacked weights containers.

OrtStatus* ORT_API_CALL CreatePrepackedWeightsContainer(OrtPrepackedWeightsContainer** out) {
  return guarded("CreatePrepackedWeightsContainer", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreatePrepackedWeightsContainer");
    *out = new OrtPrepackedWeightsContainer();
    return nullptr;
  });
}

void ORT_API_CALL ReleasePrepackedWeightsContainer(OrtPrepackedWeightsContainer* input) { delete input; }

OrtStatus* ORT_API_CALL CreateSessionWithPrepackedWeightsContainer(const OrtEnv* env, const ORTCHAR_T* model_path,
                                                                   const OrtSessionOptions* options,
                                                                   OrtPrepackedWeightsContainer* prepacked_weights_container,
                                                                   OrtSession** out) {
  ONYX_CAPI_REQUIRE(prepacked_weights_container, "CreateSessionWithPrepackedWeightsContainer");
  return CreateSession(env, model_path, options, out);  // packs its own weights (see above)
}

OrtStatus* ORT_API_CALL CreateSessionFromArrayWithPrepackedWeightsContainer(
    const OrtEnv* env, const void* model_data, size_t model_data_length, const OrtSessionOptions* options,
    OrtPrepackedWeightsContainer* prepacked_weights_container, OrtSession** out) {
  ONYX_CAPI_REQUIRE(prepacked_weights_container, "CreateSessionFromArrayWithPrepackedWeightsContainer");
  return CreateSessionFromArray(env, model_data, model_data_length, options, out);
}

// Asynchronous runs.

namespace {

// What a RunAsync thread runs with: copies of the caller's names and input values.
struct AsyncRun {
  OrtSession* session = nullptr;
  const OrtRunOptions* run_options = nullptr;
  std::vector<std::string> input_names, output_names;
  std::vector<OrtValue> inputs;
  OrtValue** outputs = nullptr;
  RunAsyncCallbackFn callback = nullptr;
  void* user_data = nullptr;

  void operator()() const noexcept {
    OrtStatus* status = nullptr;
    try {
      std::vector<const char*> in_names, out_names;
      std::vector<const OrtValue*> ins;
      for (size_t i = 0; i < inputs.size(); ++i) {
        in_names.push_back(input_names[i].c_str());
        ins.push_back(&inputs[i]);
      }
      for (const auto& name : output_names) out_names.push_back(name.c_str());
      status = Run(session, run_options, in_names.data(), ins.data(), ins.size(), out_names.data(), out_names.size(),
                   outputs);
    } catch (...) {
      status = make_status(ORT_FAIL, "RunAsync: out of memory before the run");
    }
    try {
      if (status) callback(user_data, nullptr, 0, status);
      else callback(user_data, outputs, output_names.size(), nullptr);
    } catch (...) {  // a C++ callback's exception ends here, not the process
    }
  }
};

}  // namespace

OrtStatus* ORT_API_CALL RunAsync(OrtSession* session, const OrtRunOptions* run_options, const char* const* input_names,
                                 const OrtValue* const* input, size_t input_len, const char* const* output_names,
                                 size_t output_names_len, OrtValue** output, RunAsyncCallbackFn run_async_callback,
                                 void* user_data) {
  return guarded("RunAsync", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "RunAsync");
    ONYX_CAPI_REQUIRE(run_async_callback, "RunAsync");
    if (input_len && (!input_names || !input))
      return make_status(ORT_INVALID_ARGUMENT, "RunAsync: input names or values are null");
    if (output_names_len && (!output_names || !output))
      return make_status(ORT_INVALID_ARGUMENT, "RunAsync: output names or the output array are null");
    AsyncRun job;
    job.session = session;
    job.run_options = run_options;
    job.outputs = output;
    job.callback = run_async_callback;
    job.user_data = user_data;
    for (size_t i = 0; i < input_len; ++i) {
      if (!input_names[i] || !input[i])
        return make_status(ORT_INVALID_ARGUMENT, "RunAsync: input " + std::to_string(i) + " has a null name or value");
      job.input_names.emplace_back(input_names[i]);
      job.inputs.push_back(*input[i]);  // shares the value's data
    }
    for (size_t i = 0; i < output_names_len; ++i) {
      if (!output_names[i])
        return make_status(ORT_INVALID_ARGUMENT, "RunAsync: output name " + std::to_string(i) + " is null");
      job.output_names.emplace_back(output_names[i]);
    }
    std::thread(std::move(job)).detach();  // a failure to start one is an exception: returned, no callback
    return nullptr;
  });
}

// Per-run profiling.

OrtStatus* ORT_API_CALL RunOptionsEnableProfiling(OrtRunOptions* options, const ORTCHAR_T* profile_file_prefix) {
  ONYX_CAPI_REQUIRE(options, "RunOptionsEnableProfiling");
  ONYX_CAPI_REQUIRE(profile_file_prefix, "RunOptionsEnableProfiling");
  return make_status(ORT_NOT_IMPLEMENTED, "RunOptionsEnableProfiling: onyx profiles whole sessions (EnableProfiling on "
                                          "the session options, then SessionEndProfiling), not single runs");
}

OrtStatus* ORT_API_CALL RunOptionsDisableProfiling(OrtRunOptions* options) {
  ONYX_CAPI_REQUIRE(options, "RunOptionsDisableProfiling");
  return nullptr;  // a single run is never profiled on its own
}

}  // namespace onyx::capi
