// Small members around runs: waiting for a binding's devices, the intra-op affinity string of
// the global threads, the resources and streams a custom kernel may ask for, releasing a
// session's recorded runs, and experimental functions.
//
// Contracts:
// - SynchronizeBoundInputs / SynchronizeBoundOutputs: wait until the work queued by the
//   session's provider of each device a bound input (outputs: a bound output buffer, an output
//   bound to a device, or an output of the last run) lies on has finished (the CUDA provider's
//   synchronize). Values on the host need nothing, so with the CPU alone this is a checked
//   no-op; a device no provider of the session uses has no onyx work to wait for. Null
//   binding: INVALID_ARGUMENT.
// - SetGlobalIntraOpThreadAffinity: the string is checked against ONNX Runtime's syntax
//   (groups separated by ';', one per thread; each a ',' list of 1-based logical processor
//   ids or 'a-b' ranges with 1 <= a <= b; digits only, no spaces) and kept in the threading
//   options; "" clears it. It is NOT applied: onyx's intra-op threads are the process's one
//   OpenMP team, started and resized by libgomp, shared by every session and by oneDNN, so
//   there is no point at which onyx starts the threads an environment's settings would pin.
//   Nor is the group count checked against the thread count (ORT checks that when it builds
//   its pool). A null options or string, or a malformed string: INVALID_ARGUMENT.
// - KernelContext_GetResource: custom ops run on the CPU, which has no per-stream resources:
//   *resource is null and the call succeeds, whatever the version and id, as ORT answers for a
//   kernel without a compute stream. KernelContext_GetSyncStream: null (no streams on the CPU).
// - SessionReleaseCapturedGraph: a session that records no runs (no CUDA provider with
//   enable_cuda_graph=1) has nothing to release: OK for any id, as ORT answers for an id it
//   never captured. A session that records runs: NOT_IMPLEMENTED; onyx keeps each graph id's
//   recording for the session's life (session/run_capture.h) and has no way yet to drop one.
// - GetExperimentalFunction: onyx offers no experimental functions; null for every name.
#include "capi/custom_ops.h"
#include "capi/generated/api_declarations.h"

namespace onyx::capi {
namespace {

// Waits for the session's provider of `device`, if it has one and the device is not the host.
Status wait_for(const Session& session, const Device& device) {
  if (device.is_cpu()) return Status::Ok();
  ExecutionProvider* provider = session.provider_for(device);
  return provider ? provider->synchronize() : Status::Ok();
}

Status wait_for(const Session& session, const Value& value) {
  if (value.is_tensor()) return wait_for(session, value.tensor().device());
  if (value.is_sequence())
    for (const Tensor& t : value.sequence_items()) ONYX_RETURN_IF_ERROR(wait_for(session, t.device()));
  if (value.is_map()) {
    ONYX_RETURN_IF_ERROR(wait_for(session, value.map_keys().device()));
    return wait_for(session, value.map_values().device());
  }
  return Status::Ok();
}

OrtStatus* failed(const Status& status, const char* call) {
  return make_status(ort_code_of(status.code()), std::string(call) + ": " + status.message());
}

// "" when `s` is a well-formed affinity string; else what is wrong with it.
std::string affinity_error(const std::string& s) {
  constexpr int64_t kMostProcessors = 1 << 20;
  size_t at = 0;
  int group = 0;
  auto number = [&](int64_t& out) -> bool {
    const size_t start = at;
    out = 0;
    while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
      out = out * 10 + (s[at] - '0');
      if (out > kMostProcessors) return false;
      ++at;
    }
    return at > start && out >= 1;
  };
  while (true) {
    ++group;
    while (true) {  // one processor id or range
      int64_t from = 0, to = 0;
      if (!number(from))
        return "group " + std::to_string(group) + " needs a processor id from 1 to " + std::to_string(kMostProcessors) +
               " at offset " + std::to_string(at);
      to = from;
      if (at < s.size() && s[at] == '-') {
        ++at;
        if (!number(to))
          return "group " + std::to_string(group) + " has a range without a valid end at offset " + std::to_string(at);
        if (to < from)
          return "group " + std::to_string(group) + " has the range " + std::to_string(from) + "-" + std::to_string(to) +
                 ", which ends before it begins";
      }
      if (at < s.size() && s[at] == ',') {
        ++at;
        continue;
      }
      break;
    }
    if (at == s.size()) return "";
    if (s[at] != ';') return "unexpected character '" + std::string(1, s[at]) + "' at offset " + std::to_string(at);
    ++at;
  }
}

}  // namespace

OrtStatus* ORT_API_CALL SynchronizeBoundInputs(OrtIoBinding* binding_ptr) {
  return guarded("SynchronizeBoundInputs", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(binding_ptr, "SynchronizeBoundInputs");
    for (const auto& [name, value] : binding_ptr->binding.inputs())
      if (Status st = wait_for(*binding_ptr->session, value); !st.ok()) return failed(st, "SynchronizeBoundInputs");
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SynchronizeBoundOutputs(OrtIoBinding* binding_ptr) {
  return guarded("SynchronizeBoundOutputs", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(binding_ptr, "SynchronizeBoundOutputs");
    const Session& session = *binding_ptr->session;
    for (const auto& out : binding_ptr->binding.bound_outputs()) {
      const Device device = out.buffer.defined() ? out.buffer.device() : out.device;
      if (Status st = wait_for(session, device); !st.ok()) return failed(st, "SynchronizeBoundOutputs");
    }
    for (const Value& value : binding_ptr->binding.outputs())
      if (Status st = wait_for(session, value); !st.ok()) return failed(st, "SynchronizeBoundOutputs");
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetGlobalIntraOpThreadAffinity(OrtThreadingOptions* tp_options, const char* affinity_string) {
  return guarded("SetGlobalIntraOpThreadAffinity", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(tp_options, "SetGlobalIntraOpThreadAffinity");
    ONYX_CAPI_REQUIRE(affinity_string, "SetGlobalIntraOpThreadAffinity");
    const std::string s = affinity_string;
    if (!s.empty())
      if (std::string why = affinity_error(s); !why.empty())
        return make_status(ORT_INVALID_ARGUMENT, "SetGlobalIntraOpThreadAffinity: '" + s + "': " + why);
    tp_options->intra_op_affinity = s;  // kept, not applied: see the contracts above
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL KernelContext_GetResource(const OrtKernelContext* context, int resource_version, int resource_id,
                                                  void** resource) {
  (void)resource_version;
  (void)resource_id;
  ONYX_CAPI_REQUIRE(context, "KernelContext_GetResource");
  ONYX_CAPI_REQUIRE(resource, "KernelContext_GetResource");
  *resource = nullptr;  // the CPU has no stream and so no resources
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelContext_GetSyncStream(const OrtKernelContext* context, OrtSyncStream** out) {
  ONYX_CAPI_REQUIRE(context, "KernelContext_GetSyncStream");
  ONYX_CAPI_REQUIRE(out, "KernelContext_GetSyncStream");
  *out = nullptr;  // custom ops run on the CPU, without a stream
  return nullptr;
}

OrtStatus* ORT_API_CALL SessionReleaseCapturedGraph(OrtSession* session, int graph_annotation_id) {
  ONYX_CAPI_REQUIRE(session, "SessionReleaseCapturedGraph");
  if (!session->session->records_runs()) return nullptr;  // nothing was captured
  return make_status(ORT_NOT_IMPLEMENTED, "SessionReleaseCapturedGraph: onyx keeps the recording of graph id " +
                                              std::to_string(graph_annotation_id) +
                                              " for the session's life; it cannot release one yet");
}

OrtExperimentalFnPtr ORT_API_CALL GetExperimentalFunction(const char* name) {
  (void)name;
  return nullptr;  // onyx has no experimental functions
}

}  // namespace onyx::capi
