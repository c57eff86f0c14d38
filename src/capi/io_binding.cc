// IoBinding through the C API (onnxruntime-node runs every session through one): inputs
// bound to values, outputs bound to a device and allocated by the run, then handed out.
#include <algorithm>
#include <cstring>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"

namespace onyx::capi {

OrtStatus* ORT_API_CALL CreateIoBinding(OrtSession* session, OrtIoBinding** out) {
  return guarded("CreateIoBinding", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "CreateIoBinding");
    ONYX_CAPI_REQUIRE(out, "CreateIoBinding");
    *out = new OrtIoBinding(*session->session);
    return nullptr;
  });
}

void ORT_API_CALL ReleaseIoBinding(OrtIoBinding* binding) { delete binding; }

OrtStatus* ORT_API_CALL BindInput(OrtIoBinding* binding, const char* name, const OrtValue* value) {
  return guarded("BindInput", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(binding, "BindInput");
    ONYX_CAPI_REQUIRE(name, "BindInput");
    ONYX_CAPI_REQUIRE(value, "BindInput");
    if (is_sparse(value))  // onyx's IR has no sparse-typed model inputs
      return make_status(ORT_INVALID_ARGUMENT, std::string("BindInput: input '") + name +
                                                   "' is a sparse tensor; onyx sessions take dense tensors");
    return to_ort_status(binding->binding.bind_input(name, value->value), ORT_FAIL);
  });
}

OrtStatus* ORT_API_CALL BindOutputToDevice(OrtIoBinding* binding, const char* name, const OrtMemoryInfo* mem_info) {
  return guarded("BindOutputToDevice", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(binding, "BindOutputToDevice");
    ONYX_CAPI_REQUIRE(name, "BindOutputToDevice");
    ONYX_CAPI_REQUIRE(mem_info, "BindOutputToDevice");
    Device device;
    if (mem_info->name == "Cuda") {
      device = Device{Device::Type::kCuda, mem_info->id};
    } else if (mem_info->name != "Cpu" && mem_info->name != "CpuPinned") {
      return make_status(ORT_NOT_IMPLEMENTED, "BindOutputToDevice: memory '" + mem_info->name +
                                                  "' (onyx binds outputs to Cpu and Cuda)");
    }
    return to_ort_status(binding->binding.bind_output(name, device), ORT_INVALID_ARGUMENT);
  });
}

OrtStatus* ORT_API_CALL RunWithBinding(OrtSession* session, const OrtRunOptions* run_options, const OrtIoBinding* binding) {
  return guarded("RunWithBinding", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "RunWithBinding");
    ONYX_CAPI_REQUIRE(binding, "RunWithBinding");
    // ORT's own binding changes in a run too (its outputs): the handle is const only in name.
    return to_ort_status(
        session->session->run(const_cast<OrtIoBinding*>(binding)->binding, run_options_or_defaults(run_options)),
        ORT_INVALID_ARGUMENT);
  });
}

OrtStatus* ORT_API_CALL GetBoundOutputValues(const OrtIoBinding* binding, OrtAllocator* allocator, OrtValue*** output,
                                             size_t* output_count) {
  return guarded("GetBoundOutputValues", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(binding, "GetBoundOutputValues");
    ONYX_CAPI_REQUIRE(allocator, "GetBoundOutputValues");
    ONYX_CAPI_REQUIRE(output, "GetBoundOutputValues");
    ONYX_CAPI_REQUIRE(output_count, "GetBoundOutputValues");
    const std::vector<Value>& values = binding->binding.outputs();
    *output = nullptr;
    *output_count = 0;
    if (values.empty()) return nullptr;
    void* p = allocator->Alloc(allocator, values.size() * sizeof(OrtValue*));
    if (!p) return make_status(ORT_FAIL, "GetBoundOutputValues: the allocator returned null");
    auto** array = static_cast<OrtValue**>(p);
    for (size_t i = 0; i < values.size(); ++i) array[i] = new OrtValue{values[i]};
    *output = array;
    *output_count = values.size();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL BindOutput(OrtIoBinding* binding, const char* name, const OrtValue* value) {
  return guarded("BindOutput", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(binding, "BindOutput");
    ONYX_CAPI_REQUIRE(name, "BindOutput");
    ONYX_CAPI_REQUIRE(value, "BindOutput");
    if (!value->value.is_tensor())
      return make_status(ORT_INVALID_ARGUMENT, std::string("BindOutput: output '") + name + "' is bound to a non-tensor");
    return to_ort_status(binding->binding.bind_output(name, value->value.tensor()), ORT_INVALID_ARGUMENT);
  });
}

OrtStatus* ORT_API_CALL GetBoundOutputNames(const OrtIoBinding* binding, OrtAllocator* allocator, char** buffer,
                                            size_t** lengths, size_t* count) {
  return guarded("GetBoundOutputNames", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(binding, "GetBoundOutputNames");
    ONYX_CAPI_REQUIRE(allocator, "GetBoundOutputNames");
    ONYX_CAPI_REQUIRE(buffer, "GetBoundOutputNames");
    ONYX_CAPI_REQUIRE(lengths, "GetBoundOutputNames");
    ONYX_CAPI_REQUIRE(count, "GetBoundOutputNames");
    // ORT's layout: the names back to back (no NULs) in one buffer, their lengths in another,
    // both from `allocator`; nothing allocated when nothing is bound.
    const auto& outputs = binding->binding.bound_outputs();
    *buffer = nullptr;
    *lengths = nullptr;
    *count = outputs.size();
    if (outputs.empty()) return nullptr;
    size_t total = 0;
    for (const auto& o : outputs) total += o.name.size();
    auto* names = static_cast<char*>(allocator->Alloc(allocator, std::max<size_t>(total, 1)));
    auto* sizes = static_cast<size_t*>(allocator->Alloc(allocator, outputs.size() * sizeof(size_t)));
    if (!names || !sizes) {
      if (names) allocator->Free(allocator, names);
      if (sizes) allocator->Free(allocator, sizes);
      return make_status(ORT_FAIL, "GetBoundOutputNames: the allocator returned null");
    }
    size_t at = 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::memcpy(names + at, outputs[i].name.data(), outputs[i].name.size());
      at += outputs[i].name.size();
      sizes[i] = outputs[i].name.size();
    }
    *buffer = names;
    *lengths = sizes;
    return nullptr;
  });
}

void ORT_API_CALL ClearBoundInputs(OrtIoBinding* binding) {
  if (binding) binding->binding.clear_inputs();
}

void ORT_API_CALL ClearBoundOutputs(OrtIoBinding* binding) {
  if (binding) binding->binding.clear_outputs();
}

}  // namespace onyx::capi

