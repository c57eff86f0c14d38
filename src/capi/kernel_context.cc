// What a custom op's kernel calls back: OrtKernelInfo (its node, attributes, constant inputs),
// OrtKernelContext (a run's inputs and outputs, threads, allocator) and OrtLogger
// (custom_ops.h). Strings go out by ORT's size protocol: a null buffer asks for the size
// (with the NUL); a buffer too small is INVALID_ARGUMENT with the size needed set.
#include <cstring>

#include "capi/custom_ops.h"
#include "capi/generated/api_declarations.h"
#include "core/logging.h"
#include "core/parallel.h"

namespace onyx::capi {
namespace {

OrtStatus* copy_out(const std::string& s, char* out, size_t* size, const char* call) {
  ONYX_CAPI_REQUIRE(size, call);
  const size_t need = s.size() + 1;
  if (!out) {
    *size = need;
    return nullptr;
  }
  if (*size < need) {
    const size_t had = *size;
    *size = need;
    return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": the buffer holds " + std::to_string(had) +
                                                 " bytes, " + std::to_string(need) + " are needed");
  }
  std::memcpy(out, s.c_str(), need);
  *size = need;
  return nullptr;
}

template <typename T>
OrtStatus* copy_array(const std::vector<T>& v, T* out, size_t* size, const char* call) {
  ONYX_CAPI_REQUIRE(size, call);
  if (!out) {
    *size = v.size();
    return nullptr;
  }
  if (*size < v.size()) {
    const size_t had = *size;
    *size = v.size();
    return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": the buffer holds " + std::to_string(had) +
                                                 " values, " + std::to_string(v.size()) + " are needed");
  }
  std::copy(v.begin(), v.end(), out);
  *size = v.size();
  return nullptr;
}

// The attribute `name` of the kind asked for, or an OrtStatus saying why not.
OrtStatus* attribute(const OrtKernelInfo* info, const char* name, ir::Attribute::Type kind, const char* call,
                     const ir::Attribute** out) {
  ONYX_CAPI_REQUIRE(info, call);
  ONYX_CAPI_REQUIRE(name, call);
  const ir::Attribute* a = info->node.attribute(name);
  if (!a) return make_status(ORT_FAIL, std::string(call) + ": node " + info->node.label() + " has no attribute '" + name + "'");
  if (a->type != kind)
    return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": attribute '" + name + "' of node " +
                                                 info->node.label() + " is of another type");
  *out = a;
  return nullptr;
}

OrtStatus* index_check(size_t index, size_t count, const char* what, const char* call) {
  if (index < count) return nullptr;
  return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": " + what + " " + std::to_string(index) +
                                               " is out of range (there are " + std::to_string(count) + ")");
}

}  // namespace

// Kernel info.

OrtStatus* ORT_API_CALL KernelInfoGetAttribute_float(const OrtKernelInfo* info, const char* name, float* out) {
  return guarded("KernelInfoGetAttribute_float", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "KernelInfoGetAttribute_float");
    const ir::Attribute* a = nullptr;
    if (OrtStatus* st = attribute(info, name, ir::Attribute::Type::kFloat, "KernelInfoGetAttribute_float", &a)) return st;
    *out = a->f;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttribute_int64(const OrtKernelInfo* info, const char* name, int64_t* out) {
  return guarded("KernelInfoGetAttribute_int64", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "KernelInfoGetAttribute_int64");
    const ir::Attribute* a = nullptr;
    if (OrtStatus* st = attribute(info, name, ir::Attribute::Type::kInt, "KernelInfoGetAttribute_int64", &a)) return st;
    *out = a->i;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttribute_string(const OrtKernelInfo* info, const char* name, char* out,
                                                      size_t* size) {
  return guarded("KernelInfoGetAttribute_string", [&]() -> OrtStatus* {
    const ir::Attribute* a = nullptr;
    if (OrtStatus* st = attribute(info, name, ir::Attribute::Type::kString, "KernelInfoGetAttribute_string", &a)) return st;
    return copy_out(a->s, out, size, "KernelInfoGetAttribute_string");
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttributeArray_float(const OrtKernelInfo* info, const char* name, float* out,
                                                          size_t* size) {
  return guarded("KernelInfoGetAttributeArray_float", [&]() -> OrtStatus* {
    const ir::Attribute* a = nullptr;
    if (OrtStatus* st = attribute(info, name, ir::Attribute::Type::kFloats, "KernelInfoGetAttributeArray_float", &a))
      return st;
    return copy_array(a->floats, out, size, "KernelInfoGetAttributeArray_float");
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttributeArray_int64(const OrtKernelInfo* info, const char* name, int64_t* out,
                                                          size_t* size) {
  return guarded("KernelInfoGetAttributeArray_int64", [&]() -> OrtStatus* {
    const ir::Attribute* a = nullptr;
    if (OrtStatus* st = attribute(info, name, ir::Attribute::Type::kInts, "KernelInfoGetAttributeArray_int64", &a))
      return st;
    return copy_array(a->ints, out, size, "KernelInfoGetAttributeArray_int64");
  });
}

// The strings of a strings attribute: each NUL-terminated and the array of pointers to them,
// all from `allocator` (the caller frees each string, then the array, there). No strings: a
// null array and *size 0.
OrtStatus* ORT_API_CALL KernelInfoGetAttributeArray_string(const OrtKernelInfo* info, const char* name,
                                                           OrtAllocator* allocator, char*** out, size_t* size) {
  return guarded("KernelInfoGetAttributeArray_string", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(allocator, "KernelInfoGetAttributeArray_string");
    ONYX_CAPI_REQUIRE(out, "KernelInfoGetAttributeArray_string");
    ONYX_CAPI_REQUIRE(size, "KernelInfoGetAttributeArray_string");
    const ir::Attribute* a = nullptr;
    if (OrtStatus* st = attribute(info, name, ir::Attribute::Type::kStrings, "KernelInfoGetAttributeArray_string", &a))
      return st;
    *out = nullptr;
    *size = 0;
    if (a->strings.empty()) return nullptr;
    auto** array = static_cast<char**>(allocator->Alloc(allocator, a->strings.size() * sizeof(char*)));
    if (!array) return make_status(ORT_FAIL, "KernelInfoGetAttributeArray_string: the allocator returned null");
    for (size_t i = 0; i < a->strings.size(); ++i) {
      if (OrtStatus* st = copy_to_allocator(allocator, a->strings[i], &array[i], "KernelInfoGetAttributeArray_string")) {
        for (size_t j = 0; j < i; ++j) allocator->Free(allocator, array[j]);  // nothing half-made is left
        allocator->Free(allocator, array);
        return st;
      }
    }
    *out = array;
    *size = a->strings.size();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttribute_tensor(const OrtKernelInfo* info, const char* name, OrtAllocator*,
                                                      OrtValue** out) {
  return guarded("KernelInfoGetAttribute_tensor", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "KernelInfoGetAttribute_tensor");
    const ir::Attribute* a = nullptr;
    if (OrtStatus* st = attribute(info, name, ir::Attribute::Type::kTensor, "KernelInfoGetAttribute_tensor", &a))
      return st;
    *out = new OrtValue{Value(a->t.clone())};  // the caller's to release
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CopyKernelInfo(const OrtKernelInfo* info, OrtKernelInfo** info_copy) {
  return guarded("CopyKernelInfo", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(info, "CopyKernelInfo");
    ONYX_CAPI_REQUIRE(info_copy, "CopyKernelInfo");
    *info_copy = new OrtKernelInfo(*info);
    return nullptr;
  });
}

void ORT_API_CALL ReleaseKernelInfo(OrtKernelInfo* info) { delete info; }

OrtStatus* ORT_API_CALL KernelInfo_GetInputCount(const OrtKernelInfo* info, size_t* out) {
  ONYX_CAPI_REQUIRE(info, "KernelInfo_GetInputCount");
  ONYX_CAPI_REQUIRE(out, "KernelInfo_GetInputCount");
  *out = info->node.inputs.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelInfo_GetOutputCount(const OrtKernelInfo* info, size_t* out) {
  ONYX_CAPI_REQUIRE(info, "KernelInfo_GetOutputCount");
  ONYX_CAPI_REQUIRE(out, "KernelInfo_GetOutputCount");
  *out = info->node.outputs.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelInfo_GetInputName(const OrtKernelInfo* info, size_t index, char* out, size_t* size) {
  return guarded("KernelInfo_GetInputName", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(info, "KernelInfo_GetInputName");
    if (OrtStatus* st = index_check(index, info->node.inputs.size(), "input", "KernelInfo_GetInputName")) return st;
    return copy_out(info->node.inputs[index], out, size, "KernelInfo_GetInputName");
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetOutputName(const OrtKernelInfo* info, size_t index, char* out, size_t* size) {
  return guarded("KernelInfo_GetOutputName", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(info, "KernelInfo_GetOutputName");
    if (OrtStatus* st = index_check(index, info->node.outputs.size(), "output", "KernelInfo_GetOutputName")) return st;
    return copy_out(info->node.outputs[index], out, size, "KernelInfo_GetOutputName");
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetInputTypeInfo(const OrtKernelInfo* info, size_t index, OrtTypeInfo** type_info) {
  return guarded("KernelInfo_GetInputTypeInfo", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(info, "KernelInfo_GetInputTypeInfo");
    ONYX_CAPI_REQUIRE(type_info, "KernelInfo_GetInputTypeInfo");
    if (OrtStatus* st = index_check(index, info->input_types.size(), "input", "KernelInfo_GetInputTypeInfo")) return st;
    *type_info = new OrtTypeInfo(info->input_types[index]);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetOutputTypeInfo(const OrtKernelInfo* info, size_t index, OrtTypeInfo** type_info) {
  return guarded("KernelInfo_GetOutputTypeInfo", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(info, "KernelInfo_GetOutputTypeInfo");
    ONYX_CAPI_REQUIRE(type_info, "KernelInfo_GetOutputTypeInfo");
    if (OrtStatus* st = index_check(index, info->output_types.size(), "output", "KernelInfo_GetOutputTypeInfo")) return st;
    *type_info = new OrtTypeInfo(info->output_types[index]);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetNodeName(const OrtKernelInfo* info, char* out, size_t* size) {
  return guarded("KernelInfo_GetNodeName", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(info, "KernelInfo_GetNodeName");
    return copy_out(info->node.name, out, size, "KernelInfo_GetNodeName");
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetLogger(const OrtKernelInfo* info, const OrtLogger** logger) {
  ONYX_CAPI_REQUIRE(info, "KernelInfo_GetLogger");
  ONYX_CAPI_REQUIRE(logger, "KernelInfo_GetLogger");
  *logger = &info->logger;
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelInfoGetConstantInput_tensor(const OrtKernelInfo* info, size_t index, int* is_constant,
                                                          const OrtValue** out) {
  ONYX_CAPI_REQUIRE(info, "KernelInfoGetConstantInput_tensor");
  ONYX_CAPI_REQUIRE(is_constant, "KernelInfoGetConstantInput_tensor");
  ONYX_CAPI_REQUIRE(out, "KernelInfoGetConstantInput_tensor");
  if (OrtStatus* st = index_check(index, info->node.inputs.size(), "input", "KernelInfoGetConstantInput_tensor")) return st;
  const OrtValue* v =
      index < info->constant_inputs.size() && info->constant_inputs[index] ? &*info->constant_inputs[index] : nullptr;
  *is_constant = v != nullptr;
  *out = v;
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelInfoGetAllocator(const OrtKernelInfo* info, OrtMemType, OrtAllocator** out) {
  ONYX_CAPI_REQUIRE(info, "KernelInfoGetAllocator");
  ONYX_CAPI_REQUIRE(out, "KernelInfoGetAllocator");
  *out = default_allocator();
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelInfo_GetOperatorDomain(const OrtKernelInfo* info, char* out, size_t* size) {
  return guarded("KernelInfo_GetOperatorDomain", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(info, "KernelInfo_GetOperatorDomain");
    return copy_out(info->node.domain, out, size, "KernelInfo_GetOperatorDomain");
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetOperatorType(const OrtKernelInfo* info, char* out, size_t* size) {
  return guarded("KernelInfo_GetOperatorType", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(info, "KernelInfo_GetOperatorType");
    return copy_out(info->node.op_type, out, size, "KernelInfo_GetOperatorType");
  });
}

OrtStatus* ORT_API_CALL KernelInfo_GetOperatorSinceVersion(const OrtKernelInfo* info, int* since_version) {
  ONYX_CAPI_REQUIRE(info, "KernelInfo_GetOperatorSinceVersion");
  ONYX_CAPI_REQUIRE(since_version, "KernelInfo_GetOperatorSinceVersion");
  *since_version = int(info->opset);
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelInfo_GetConfigEntries(const OrtKernelInfo* info, OrtKeyValuePairs** out) {
  return guarded("KernelInfo_GetConfigEntries", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(info, "KernelInfo_GetConfigEntries");
    ONYX_CAPI_REQUIRE(out, "KernelInfo_GetConfigEntries");
    auto pairs = std::make_unique<OrtKeyValuePairs>();
    for (const auto& [k, v] : info->config) {
      pairs->keys.push_back(k);
      pairs->values.push_back(v);
    }
    pairs->refresh();
    *out = pairs.release();  // the caller's, released with ReleaseKeyValuePairs
    return nullptr;
  });
}

// Kernel context.

OrtStatus* ORT_API_CALL KernelContext_GetInputCount(const OrtKernelContext* context, size_t* out) {
  ONYX_CAPI_REQUIRE(context, "KernelContext_GetInputCount");
  ONYX_CAPI_REQUIRE(out, "KernelContext_GetInputCount");
  *out = context->inputs.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelContext_GetOutputCount(const OrtKernelContext* context, size_t* out) {
  ONYX_CAPI_REQUIRE(context, "KernelContext_GetOutputCount");
  ONYX_CAPI_REQUIRE(out, "KernelContext_GetOutputCount");
  *out = context->outputs.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelContext_GetInput(const OrtKernelContext* context, size_t index, const OrtValue** out) {
  ONYX_CAPI_REQUIRE(context, "KernelContext_GetInput");
  ONYX_CAPI_REQUIRE(out, "KernelContext_GetInput");
  if (OrtStatus* st = index_check(index, context->inputs.size(), "input", "KernelContext_GetInput")) return st;
  *out = context->inputs[index].get();  // null for an omitted optional input
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelContext_GetOutput(OrtKernelContext* context, size_t index, const int64_t* dim_values,
                                                size_t dim_count, OrtValue** out) {
  return guarded("KernelContext_GetOutput", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(context, "KernelContext_GetOutput");
    ONYX_CAPI_REQUIRE(out, "KernelContext_GetOutput");
    if (dim_count) ONYX_CAPI_REQUIRE(dim_values, "KernelContext_GetOutput");
    if (OrtStatus* st = index_check(index, context->outputs.size(), "output", "KernelContext_GetOutput")) return st;
    Shape shape;
    for (size_t i = 0; i < dim_count; ++i) {
      if (dim_values[i] < 0)
        return make_status(ORT_INVALID_ARGUMENT, "KernelContext_GetOutput: dim " + std::to_string(i) + " is " +
                                                     std::to_string(dim_values[i]));
      shape.push_back(dim_values[i]);
    }
    std::unique_ptr<OrtValue>& slot = context->outputs[index];
    if (slot && slot->value.is_tensor() && slot->value.tensor().shape() == shape) {
      *out = slot.get();  // asked again with the same shape: the same value
      return nullptr;
    }
    // The op's declared type; an undefined one (a type parameter) takes the type of the first
    // input whose declared type is undefined too, else of the first input.
    const OrtCustomOp* op = context->op;
    const size_t outputs = op->GetOutputTypeCount ? op->GetOutputTypeCount(op) : 0;
    ONNXTensorElementDataType type = outputs && op->GetOutputType ? op->GetOutputType(op, std::min(index, outputs - 1))
                                                                    : ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) {
      const OrtValue* like = nullptr;
      for (size_t i = 0; i < context->inputs.size() && !like; ++i) {
        const OrtValue* v = context->inputs[i].get();
        if (v && v->value.is_tensor() && context->info->input_types[i].tensor.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED)
          like = v;
      }
      for (size_t i = 0; i < context->inputs.size() && !like; ++i)
        if (context->inputs[i] && context->inputs[i]->value.is_tensor()) like = context->inputs[i].get();
      if (!like)
        return make_status(ORT_INVALID_ARGUMENT, "KernelContext_GetOutput: output " + std::to_string(index) +
                                                     " of node " + context->info->node.label() +
                                                     " has no declared type and no tensor input to take it from");
      type = ort_element_type(like->value.tensor().dtype());
    }
    auto t = context->ctx->allocate_output_uninitialized(int(index), data_type_from_ort(int(type)), shape);
    if (!t.ok()) return to_ort_status(t.status());
    slot = std::make_unique<OrtValue>(OrtValue{Value(**t)});  // shares the output's buffer
    *out = slot.get();
    return nullptr;
  });
}

// Output `output_index` if it is made already, else null: onyx allocates no custom-op output
// before the op asks, so it is the value an earlier KernelContext_GetOutput of this compute
// call made (owned by the context, as that one is; not to be released).
OrtStatus* ORT_API_CALL KernelContext_GetPreallocatedOutput(const OrtKernelContext* context, size_t output_index,
                                                            OrtValue** output) {
  ONYX_CAPI_REQUIRE(context, "KernelContext_GetPreallocatedOutput");
  ONYX_CAPI_REQUIRE(output, "KernelContext_GetPreallocatedOutput");
  if (OrtStatus* st = index_check(output_index, context->outputs.size(), "output", "KernelContext_GetPreallocatedOutput"))
    return st;
  *output = context->outputs[output_index].get();
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelContext_GetGPUComputeStream(const OrtKernelContext* context, void** out) {
  ONYX_CAPI_REQUIRE(context, "KernelContext_GetGPUComputeStream");
  ONYX_CAPI_REQUIRE(out, "KernelContext_GetGPUComputeStream");
  *out = nullptr;  // custom ops run on the CPU
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelContext_GetLogger(const OrtKernelContext* context, const OrtLogger** logger) {
  ONYX_CAPI_REQUIRE(context, "KernelContext_GetLogger");
  ONYX_CAPI_REQUIRE(logger, "KernelContext_GetLogger");
  *logger = &context->info->logger;
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelContext_GetAllocator(const OrtKernelContext* context, const OrtMemoryInfo* mem_info,
                                                   OrtAllocator** out) {
  ONYX_CAPI_REQUIRE(context, "KernelContext_GetAllocator");
  ONYX_CAPI_REQUIRE(out, "KernelContext_GetAllocator");
  if (mem_info && mem_info->name != "Cpu" && mem_info->name != "CPU")
    return make_status(ORT_INVALID_ARGUMENT, "KernelContext_GetAllocator: custom ops run on the CPU; no allocator for " +
                                                 mem_info->name);
  *out = default_allocator();  // ReleaseAllocator leaves it be
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelContext_ParallelFor(const OrtKernelContext* context, void (*fn)(void*, size_t),
                                                  size_t total, size_t num_batch, void* usr_data) {
  return guarded("KernelContext_ParallelFor", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(context, "KernelContext_ParallelFor");
    ONYX_CAPI_REQUIRE(fn, "KernelContext_ParallelFor");
    if (total == 0) return nullptr;
    const int64_t grain = num_batch ? int64_t((total + num_batch - 1) / num_batch) : 1;
    parallel_for(int64_t(total), grain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) fn(usr_data, size_t(i));
    });
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL KernelContext_GetScratchBuffer(const OrtKernelContext* context, const OrtMemoryInfo* mem_info,
                                                       size_t count_or_bytes, void** out) {
  ONYX_CAPI_REQUIRE(context, "KernelContext_GetScratchBuffer");
  ONYX_CAPI_REQUIRE(out, "KernelContext_GetScratchBuffer");
  if (mem_info && mem_info->name != "Cpu" && mem_info->name != "CPU")
    return make_status(ORT_INVALID_ARGUMENT, "KernelContext_GetScratchBuffer: custom ops run on the CPU; no memory on " +
                                                 mem_info->name);
  *out = nullptr;
  if (count_or_bytes == 0) return nullptr;
  // The caller frees it through the allocator KernelContext_GetAllocator gives (the default one).
  OrtAllocator* allocator = default_allocator();
  *out = allocator->Alloc(allocator, count_or_bytes);
  if (!*out) return make_status(ORT_FAIL, "KernelContext_GetScratchBuffer: out of memory for " +
                                              std::to_string(count_or_bytes) + " bytes");
  return nullptr;
}

// Logger.

OrtStatus* ORT_API_CALL Logger_LogMessage(const OrtLogger* logger, OrtLoggingLevel log_severity_level,
                                          const char* message, const ORTCHAR_T* file_path, int line_number,
                                          const char* func_name) {
  return guarded("Logger_LogMessage", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(logger, "Logger_LogMessage");
    std::string where = logger->node.empty() ? std::string() : "node " + logger->node + ": ";
    if (file_path) where += std::string(file_path) + ":" + std::to_string(line_number) + " ";
    if (func_name) where += std::string(func_name) + ": ";
    log_message(LogLevel(std::clamp(int(log_severity_level), 0, 4)), logger->log_level, where + (message ? message : ""));
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL Logger_GetLoggingSeverityLevel(const OrtLogger* logger, OrtLoggingLevel* out) {
  ONYX_CAPI_REQUIRE(logger, "Logger_GetLoggingSeverityLevel");
  ONYX_CAPI_REQUIRE(out, "Logger_GetLoggingSeverityLevel");
  *out = OrtLoggingLevel(logger->log_level);
  return nullptr;
}

}  // namespace onyx::capi
