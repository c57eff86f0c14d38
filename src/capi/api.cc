// The library's entry point, the OrtApi table, status objects and the library's own strings.
#include <cstring>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"

namespace onyx::capi {

OrtStatus* make_status(OrtErrorCode code, const std::string& message) {
  return new (std::nothrow) OrtStatus{code, message};
}

OrtStatus* not_implemented(const char* call) {
  return make_status(ORT_NOT_IMPLEMENTED, std::string(call) + " is not implemented in onyx's C API");
}

OrtErrorCode ort_code_of(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return ORT_OK;
    case StatusCode::kInvalidArgument: return ORT_INVALID_ARGUMENT;
    case StatusCode::kInvalidModel: return ORT_INVALID_GRAPH;
    case StatusCode::kNotFound: return ORT_NO_SUCHFILE;
    case StatusCode::kNotImplemented: return ORT_NOT_IMPLEMENTED;
    case StatusCode::kOutOfRange: return ORT_INVALID_ARGUMENT;
    case StatusCode::kRuntimeError: return ORT_RUNTIME_EXCEPTION;
    default: return ORT_FAIL;  // cancelled runs and onyx's internal errors
  }
}

OrtStatus* to_ort_status(const Status& status) { return to_ort_status(status, ort_code_of(StatusCode::kNotFound)); }

OrtStatus* to_ort_status(const Status& status, OrtErrorCode not_found_code) {
  if (status.ok()) return nullptr;
  const OrtErrorCode code = status.code() == StatusCode::kNotFound ? not_found_code : ort_code_of(status.code());
  return make_status(code, status.message());
}

OrtStatus* ORT_API_CALL CreateStatus(OrtErrorCode code, const char* msg) {
  return make_status(code, msg ? msg : "");
}

OrtErrorCode ORT_API_CALL GetErrorCode(const OrtStatus* status) { return status ? status->code : ORT_OK; }

const char* ORT_API_CALL GetErrorMessage(const OrtStatus* status) { return status ? status->message.c_str() : ""; }

void ORT_API_CALL ReleaseStatus(OrtStatus* status) { delete status; }

const char* ORT_API_CALL GetBuildInfoString() { return "onyx (ONNX Runtime C API " "1.30 compatible, ORT_API_VERSION 30)"; }

}  // namespace onyx::capi

#include "capi/generated/api_table.inc"

namespace {

const OrtApi* ORT_API_CALL get_api(uint32_t version) {
  // Every version up to ours is served by the one table (members only ever append);
  // a newer one than ours gets NULL, never a table shorter than its caller expects.
  if (version == 0 || version > ORT_API_VERSION) return nullptr;
  return &kOrtApi;
}

const char* ORT_API_CALL version_string() { return "1.30.0"; }

const OrtApiBase kApiBase = {&get_api, &version_string};

}  // namespace

#ifdef ONYX_CAPI_SYMBOL_VERSIONS
// libonnxruntime.so.1 (its version script, libonnxruntime.map, defines the nodes): the entry
// point under VERS_1.30.0, the default a new link records (onnxruntime-node 1.30 imports it),
// and under VERS_1.29.0 as well, which bindings built against ORT 1.29 import (the Java
// binding on Maven Central: its JNI library also imports the CPU append below). One function
// per version, named by `.symver` directives (clang 14 has no symver attribute); calls inside
// the library to OrtGetApiBase reach the default version.
namespace {

OrtStatus* append_cpu(OrtSessionOptions* options, int use_arena) {
  if (!options)
    return onyx::capi::make_status(ORT_INVALID_ARGUMENT, "OrtSessionOptionsAppendExecutionProvider_CPU: null options");
  options->core.enable_cpu_mem_arena = use_arena != 0;  // the CPU provider is always onyx's
  return nullptr;
}

}  // namespace

extern "C" ORT_EXPORT const OrtApiBase* ORT_API_CALL onyx_get_api_base_1_30(void) { return &kApiBase; }
extern "C" ORT_EXPORT const OrtApiBase* ORT_API_CALL onyx_get_api_base_1_29(void) { return &kApiBase; }
// ORT's exported OrtSessionOptionsAppendExecutionProvider_CPU: appending the CPU provider only
// sets whether the CPU allocations go through an arena.
extern "C" ORT_EXPORT OrtStatus* ORT_API_CALL onyx_append_cpu_1_30(OrtSessionOptions* o, int use_arena) {
  return append_cpu(o, use_arena);
}
extern "C" ORT_EXPORT OrtStatus* ORT_API_CALL onyx_append_cpu_1_29(OrtSessionOptions* o, int use_arena) {
  return append_cpu(o, use_arena);
}
__asm__(".symver onyx_get_api_base_1_30, OrtGetApiBase@@VERS_1.30.0");
__asm__(".symver onyx_get_api_base_1_29, OrtGetApiBase@VERS_1.29.0");
__asm__(".symver onyx_append_cpu_1_30, OrtSessionOptionsAppendExecutionProvider_CPU@@VERS_1.30.0");
__asm__(".symver onyx_append_cpu_1_29, OrtSessionOptionsAppendExecutionProvider_CPU@VERS_1.29.0");
#else
extern "C" ORT_EXPORT const OrtApiBase* ORT_API_CALL OrtGetApiBase(void) { return &kApiBase; }
#endif
