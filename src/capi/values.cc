// Values, their type and shape information, memory info and the default allocator through
// the C API (string tensors' elements: string_tensors.cc). Sequences, maps and optionals
// answer NOT_IMPLEMENTED where they would need more.
#include <cstdlib>
#include <cstring>
#include <limits>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"

namespace onyx::capi {
namespace {

ONNXTensorElementDataType element_type_of(DataType t) { return ort_element_type(t); }

bool known_element_type(ONNXTensorElementDataType t) { return data_type_from_ort(int(t)) != DataType::kUndefined; }

// The default allocator: aligned heap memory, described as the CPU's.
struct DefaultAllocator : OrtAllocator {
  OrtMemoryInfo info = cpu_memory_info();
  DefaultAllocator() {
    std::memset(static_cast<OrtAllocator*>(this), 0, sizeof(OrtAllocator));
    version = ORT_API_VERSION;
    Alloc = [](OrtAllocator*, size_t size) -> void* { return std::aligned_alloc(64, (size + 63) / 64 * 64 ?: 64); };
    Free = [](OrtAllocator*, void* p) { std::free(p); };
    Info = [](const OrtAllocator* self) -> const OrtMemoryInfo* { return &static_cast<const DefaultAllocator*>(self)->info; };
  }
};

OrtStatus* shape_from(const int64_t* shape, size_t shape_len, Shape& out, const char* call) {
  if (shape_len && !shape) return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": shape is null");
  for (size_t i = 0; i < shape_len; ++i) {
    if (shape[i] < 0)
      return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": dim " + std::to_string(i) + " is negative (" +
                                                   std::to_string(shape[i]) + ")");
    out.push_back(shape[i]);
  }
  return nullptr;
}

const Tensor* tensor_of(const OrtValue* value) { return value && value->value.is_tensor() ? &value->value.tensor() : nullptr; }

// INVALID_ARGUMENT for a value that is not a dense tensor, naming a sparse one as such.
OrtStatus* not_a_tensor(const OrtValue* value, const char* call) {
  return make_status(ORT_INVALID_ARGUMENT, std::string(call) + (is_sparse(value)
                                                                    ? ": the value is a sparse tensor (use the GetSparseTensor* members)"
                                                                    : ": the value is not a tensor"));
}

}  // namespace

OrtTypeInfo type_info_of(const ir::TypeInfo& type) {
  OrtTypeInfo info;
  // A nested type, or an unknown one where the model leaves it out.
  auto inner = [&]() {
    return std::make_shared<const OrtTypeInfo>(type.inner ? type_info_of(*type.inner) : OrtTypeInfo{});
  };
  switch (type.kind) {
    case ir::TypeInfo::Kind::kTensor:
      info.kind = ONNX_TYPE_TENSOR;
      info.tensor.type = element_type_of(type.elem_type);
      info.tensor.has_shape = type.shape.has_rank;
      for (const Dim& d : type.shape.dims) {
        info.tensor.dims.push_back(d.value ? *d.value : -1);
        info.tensor.symbols.push_back(d.value ? "" : d.symbol);
      }
      break;
    case ir::TypeInfo::Kind::kSequence:
      info.kind = ONNX_TYPE_SEQUENCE;
      info.sequence.element = inner();
      break;
    case ir::TypeInfo::Kind::kOptional:
      info.kind = ONNX_TYPE_OPTIONAL;
      info.optional.contained = inner();
      break;
    case ir::TypeInfo::Kind::kMap:
      info.kind = ONNX_TYPE_MAP;
      info.map.key = element_type_of(type.elem_type);
      info.map.value = inner();
      break;
    default: info.kind = ONNX_TYPE_UNKNOWN; break;
  }
  return info;
}

OrtTypeInfo type_info_of_value(const Value& value) {
  OrtTypeInfo info;
  auto tensor_type = [](const OrtTensorTypeAndShapeInfo& t) {
    auto nested = std::make_shared<OrtTypeInfo>();
    nested->kind = ONNX_TYPE_TENSOR;
    nested->tensor = t;
    return std::shared_ptr<const OrtTypeInfo>(std::move(nested));
  };
  switch (value.kind()) {
    case Value::Kind::kTensor:
      info.kind = ONNX_TYPE_TENSOR;
      info.tensor = tensor_info_of(value.tensor());
      break;
    case Value::Kind::kSequence: {  // the element type (a sequence's tensors may differ in shape)
      OrtTensorTypeAndShapeInfo element;
      element.type = element_type_of(value.sequence_elem_type());
      element.has_shape = false;
      info.kind = ONNX_TYPE_SEQUENCE;
      info.sequence.element = tensor_type(element);
      break;
    }
    case Value::Kind::kMap: {
      OrtTensorTypeAndShapeInfo element;  // each value of a map is one scalar of this type
      element.type = element_type_of(value.map_values().dtype());
      info.kind = ONNX_TYPE_MAP;
      info.map.key = element_type_of(value.map_keys().dtype());
      info.map.value = tensor_type(element);
      break;
    }
    case Value::Kind::kMapSequence: {  // a sequence of maps: its element is a map type
      auto map = std::make_shared<OrtTypeInfo>();
      OrtTensorTypeAndShapeInfo element;
      element.type = element_type_of(value.map_sequence_value_type());
      map->kind = ONNX_TYPE_MAP;
      map->map.key = element_type_of(value.map_sequence_key_type());
      map->map.value = tensor_type(element);
      info.kind = ONNX_TYPE_SEQUENCE;
      info.sequence.element = std::move(map);
      break;
    }
    case Value::Kind::kNone:  // an optional without a value: what it would hold is not known
      info.kind = ONNX_TYPE_OPTIONAL;
      info.optional.contained = std::make_shared<const OrtTypeInfo>();
      break;
  }
  return info;
}

OrtTensorTypeAndShapeInfo tensor_info_of(const Tensor& t) {
  OrtTensorTypeAndShapeInfo info;
  info.type = element_type_of(t.dtype());
  info.dims.assign(t.shape().begin(), t.shape().end());
  info.symbols.assign(info.dims.size(), "");
  return info;
}

OrtMemoryInfo memory_info_of(const std::string& name, int id, OrtAllocatorType type, OrtMemType mem_type) {
  OrtMemoryInfo info;
  info.name = name;
  info.id = id;
  info.type = type;
  info.mem_type = mem_type;
  constexpr uint32_t kNvidia = 0x10DE;
  if (name == "Cuda") {  // device memory, or host memory the device reads (a CPU input/output type)
    info.device_type = OrtMemoryInfoDeviceType_GPU;
    info.vendor_id = kNvidia;
    if (mem_type == OrtMemTypeCPUInput || mem_type == OrtMemTypeCPUOutput)
      info.device_mem_type = OrtDeviceMemoryType_HOST_ACCESSIBLE;
  } else if (name == "CudaPinned") {  // host memory pinned for the device
    info.vendor_id = kNvidia;
    info.device_mem_type = OrtDeviceMemoryType_HOST_ACCESSIBLE;
  }
  return info;
}

const OrtMemoryInfo& cpu_memory_info() {
  static const OrtMemoryInfo info = memory_info_of("Cpu", 0, OrtDeviceAllocator, OrtMemTypeDefault);
  return info;
}

OrtAllocator* default_allocator() {
  static DefaultAllocator allocator;
  return &allocator;
}

OrtStatus* copy_to_allocator(OrtAllocator* allocator, const std::string& s, char** out, const char* call) {
  if (!allocator || !out) return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": null allocator or output");
  void* p = allocator->Alloc(allocator, s.size() + 1);
  if (!p) return make_status(ORT_FAIL, std::string(call) + ": the allocator returned null");
  std::memcpy(p, s.c_str(), s.size() + 1);
  *out = static_cast<char*>(p);
  return nullptr;
}

// Type and shape information.

OrtStatus* ORT_API_CALL CastTypeInfoToTensorInfo(const OrtTypeInfo* type_info, const OrtTensorTypeAndShapeInfo** out) {
  ONYX_CAPI_REQUIRE(type_info, "CastTypeInfoToTensorInfo");
  ONYX_CAPI_REQUIRE(out, "CastTypeInfoToTensorInfo");
  // ORT: a tensor's or a sparse tensor's; null for other kinds
  *out = type_info->kind == ONNX_TYPE_TENSOR || type_info->kind == ONNX_TYPE_SPARSETENSOR ? &type_info->tensor : nullptr;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetOnnxTypeFromTypeInfo(const OrtTypeInfo* type_info, enum ONNXType* out) {
  ONYX_CAPI_REQUIRE(type_info, "GetOnnxTypeFromTypeInfo");
  ONYX_CAPI_REQUIRE(out, "GetOnnxTypeFromTypeInfo");
  *out = type_info->kind;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetTensorElementType(const OrtTensorTypeAndShapeInfo* info, enum ONNXTensorElementDataType* out) {
  ONYX_CAPI_REQUIRE(info, "GetTensorElementType");
  ONYX_CAPI_REQUIRE(out, "GetTensorElementType");
  *out = info->type;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetDimensionsCount(const OrtTensorTypeAndShapeInfo* info, size_t* out) {
  ONYX_CAPI_REQUIRE(info, "GetDimensionsCount");
  ONYX_CAPI_REQUIRE(out, "GetDimensionsCount");
  *out = info->dims.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL GetDimensions(const OrtTensorTypeAndShapeInfo* info, int64_t* dim_values, size_t length) {
  ONYX_CAPI_REQUIRE(info, "GetDimensions");
  if (length && !dim_values) return make_status(ORT_INVALID_ARGUMENT, "GetDimensions: dim_values is null");
  for (size_t i = 0; i < length && i < info->dims.size(); ++i) dim_values[i] = info->dims[i];
  return nullptr;
}

OrtStatus* ORT_API_CALL GetSymbolicDimensions(const OrtTensorTypeAndShapeInfo* info, const char** dim_params,
                                              size_t length) {
  ONYX_CAPI_REQUIRE(info, "GetSymbolicDimensions");
  if (length && !dim_params) return make_status(ORT_INVALID_ARGUMENT, "GetSymbolicDimensions: dim_params is null");
  for (size_t i = 0; i < length && i < info->symbols.size(); ++i) dim_params[i] = info->symbols[i].c_str();
  return nullptr;
}

OrtStatus* ORT_API_CALL GetTensorShapeElementCount(const OrtTensorTypeAndShapeInfo* info, size_t* out) {
  ONYX_CAPI_REQUIRE(info, "GetTensorShapeElementCount");
  ONYX_CAPI_REQUIRE(out, "GetTensorShapeElementCount");
  size_t n = 1;
  for (int64_t d : info->dims) {
    if (d < 0) return make_status(ORT_INVALID_ARGUMENT, "GetTensorShapeElementCount: the shape has unknown dims");
    if (d && n > std::numeric_limits<size_t>::max() / size_t(d))
      return make_status(ORT_INVALID_ARGUMENT, "GetTensorShapeElementCount: the element count overflows");
    n *= size_t(d);
  }
  *out = n;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetTensorTypeAndShape(const OrtValue* value, OrtTensorTypeAndShapeInfo** out) {
  return guarded("GetTensorTypeAndShape", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "GetTensorTypeAndShape");
    if (is_sparse(value)) {  // as ORT: the dense shape and the values' type
      *out = new OrtTensorTypeAndShapeInfo(sparse_dense_info(*value));
      return nullptr;
    }
    const Tensor* t = tensor_of(value);
    if (!t) return not_a_tensor(value, "GetTensorTypeAndShape");
    *out = new OrtTensorTypeAndShapeInfo(tensor_info_of(*t));
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetTypeInfo(const OrtValue* value, OrtTypeInfo** out) {
  return guarded("GetTypeInfo", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(value, "GetTypeInfo");
    ONYX_CAPI_REQUIRE(out, "GetTypeInfo");
    if (is_sparse(value)) {  // a sparse tensor of the values' type and the dense shape
      auto info = std::make_unique<OrtTypeInfo>();
      info->kind = ONNX_TYPE_SPARSETENSOR;
      info->tensor = sparse_dense_info(*value);
      *out = info.release();
      return nullptr;
    }
    *out = new OrtTypeInfo(type_info_of_value(value->value));
    return nullptr;
  });
}

void ORT_API_CALL ReleaseTypeInfo(OrtTypeInfo* info) { delete info; }
void ORT_API_CALL ReleaseTensorTypeAndShapeInfo(OrtTensorTypeAndShapeInfo* info) { delete info; }

// Memory info and the default allocator.

OrtStatus* ORT_API_CALL CreateCpuMemoryInfo(enum OrtAllocatorType type, enum OrtMemType mem_type, OrtMemoryInfo** out) {
  return guarded("CreateCpuMemoryInfo", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreateCpuMemoryInfo");
    *out = new OrtMemoryInfo(memory_info_of("Cpu", 0, type, mem_type));
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CreateMemoryInfo(const char* name, enum OrtAllocatorType type, int id, enum OrtMemType mem_type,
                                         OrtMemoryInfo** out) {
  return guarded("CreateMemoryInfo", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(name, "CreateMemoryInfo");
    ONYX_CAPI_REQUIRE(out, "CreateMemoryInfo");
    // Any name is kept (onnxruntime-node asks for "WebGPU_Buffer" on every run, even on the
    // CPU); where the memory lies matters only when a value is made on it.
    *out = new OrtMemoryInfo(memory_info_of(name, id, type, mem_type));
    return nullptr;
  });
}

void ORT_API_CALL ReleaseMemoryInfo(OrtMemoryInfo* info) { delete info; }

OrtStatus* ORT_API_CALL MemoryInfoGetName(const OrtMemoryInfo* ptr, const char** out) {
  ONYX_CAPI_REQUIRE(ptr, "MemoryInfoGetName");
  ONYX_CAPI_REQUIRE(out, "MemoryInfoGetName");
  *out = ptr->name.c_str();
  return nullptr;
}

OrtStatus* ORT_API_CALL MemoryInfoGetId(const OrtMemoryInfo* ptr, int* out) {
  ONYX_CAPI_REQUIRE(ptr, "MemoryInfoGetId");
  ONYX_CAPI_REQUIRE(out, "MemoryInfoGetId");
  *out = ptr->id;
  return nullptr;
}

OrtStatus* ORT_API_CALL MemoryInfoGetMemType(const OrtMemoryInfo* ptr, OrtMemType* out) {
  ONYX_CAPI_REQUIRE(ptr, "MemoryInfoGetMemType");
  ONYX_CAPI_REQUIRE(out, "MemoryInfoGetMemType");
  *out = ptr->mem_type;
  return nullptr;
}

OrtStatus* ORT_API_CALL MemoryInfoGetType(const OrtMemoryInfo* ptr, OrtAllocatorType* out) {
  ONYX_CAPI_REQUIRE(ptr, "MemoryInfoGetType");
  ONYX_CAPI_REQUIRE(out, "MemoryInfoGetType");
  *out = ptr->type;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetAllocatorWithDefaultOptions(OrtAllocator** out) {
  ONYX_CAPI_REQUIRE(out, "GetAllocatorWithDefaultOptions");
  *out = default_allocator();
  return nullptr;
}

OrtStatus* ORT_API_CALL AllocatorAlloc(OrtAllocator* allocator, size_t size, void** out) {
  ONYX_CAPI_REQUIRE(allocator, "AllocatorAlloc");
  ONYX_CAPI_REQUIRE(out, "AllocatorAlloc");
  *out = allocator->Alloc(allocator, size);
  return *out || size == 0 ? nullptr : make_status(ORT_FAIL, "AllocatorAlloc: out of memory");
}

OrtStatus* ORT_API_CALL AllocatorFree(OrtAllocator* allocator, void* p) {
  ONYX_CAPI_REQUIRE(allocator, "AllocatorFree");
  allocator->Free(allocator, p);
  return nullptr;
}

OrtStatus* ORT_API_CALL AllocatorGetInfo(const OrtAllocator* allocator, const struct OrtMemoryInfo** out) {
  ONYX_CAPI_REQUIRE(allocator, "AllocatorGetInfo");
  ONYX_CAPI_REQUIRE(out, "AllocatorGetInfo");
  *out = allocator->Info(allocator);
  return nullptr;
}

// Values.

OrtStatus* ORT_API_CALL CreateTensorAsOrtValue(OrtAllocator* allocator, const int64_t* shape, size_t shape_len,
                                               ONNXTensorElementDataType type, OrtValue** out) {
  return guarded("CreateTensorAsOrtValue", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(allocator, "CreateTensorAsOrtValue");
    ONYX_CAPI_REQUIRE(out, "CreateTensorAsOrtValue");
    if (!known_element_type(type))
      return make_status(ORT_NOT_IMPLEMENTED, "CreateTensorAsOrtValue: element type " + std::to_string(int(type)) +
                                                  " is not supported by onyx's C API yet");
    Shape dims;
    if (OrtStatus* bad = shape_from(shape, shape_len, dims, "CreateTensorAsOrtValue")) return bad;
    auto t = Tensor::create(data_type_from_ort(int(type)), dims);  // onyx's memory: the value owns it
    if (!t.ok()) return to_ort_status(t.status());
    *out = new OrtValue{Value(std::move(t).value())};
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CreateTensorWithDataAsOrtValue(const OrtMemoryInfo* info, void* p_data, size_t p_data_len,
                                                       const int64_t* shape, size_t shape_len,
                                                       ONNXTensorElementDataType type, OrtValue** out) {
  return guarded("CreateTensorWithDataAsOrtValue", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(info, "CreateTensorWithDataAsOrtValue");
    ONYX_CAPI_REQUIRE(out, "CreateTensorWithDataAsOrtValue");
    if (info->name != "Cpu")
      return make_status(ORT_NOT_IMPLEMENTED, "CreateTensorWithDataAsOrtValue: memory '" + info->name +
                                                  "' (onyx's C API wraps CPU memory only yet)");
    if (!known_element_type(type) || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING)
      return make_status(ORT_NOT_IMPLEMENTED, "CreateTensorWithDataAsOrtValue: element type " +
                                                  std::to_string(int(type)) + " is not supported by onyx's C API yet");
    Shape dims;
    if (OrtStatus* bad = shape_from(shape, shape_len, dims, "CreateTensorWithDataAsOrtValue")) return bad;
    auto t = Tensor::borrow(data_type_from_ort(int(type)), dims, p_data, p_data_len);  // the caller's memory, not copied
    if (!t.ok()) return to_ort_status(t.status());
    *out = new OrtValue{Value(std::move(t).value())};
    return nullptr;
  });
}

// As CreateTensorWithDataAsOrtValue, and the value owns the memory: when the last reference
// to it goes, `deleter`'s Free takes p_data back.
OrtStatus* ORT_API_CALL CreateTensorWithDataAndDeleterAsOrtValue(OrtAllocator* deleter, void* p_data, size_t p_data_len,
                                                                 const int64_t* shape, size_t shape_len,
                                                                 ONNXTensorElementDataType type, OrtValue** out) {
  return guarded("CreateTensorWithDataAndDeleterAsOrtValue", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(deleter, "CreateTensorWithDataAndDeleterAsOrtValue");
    ONYX_CAPI_REQUIRE(out, "CreateTensorWithDataAndDeleterAsOrtValue");
    if (!deleter->Free) return make_status(ORT_INVALID_ARGUMENT, "CreateTensorWithDataAndDeleterAsOrtValue: the deleter has no Free");
    if (!known_element_type(type) || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING)
      return make_status(ORT_NOT_IMPLEMENTED, "CreateTensorWithDataAndDeleterAsOrtValue: element type " +
                                                  std::to_string(int(type)) + " is not supported by onyx's C API yet");
    Shape dims;
    if (OrtStatus* bad = shape_from(shape, shape_len, dims, "CreateTensorWithDataAndDeleterAsOrtValue")) return bad;
    auto checked = Tensor::borrow(data_type_from_ort(int(type)), dims, p_data, p_data_len);  // the same checks of size
    if (!checked.ok()) return to_ort_status(checked.status());
    std::shared_ptr<void> owner(p_data, [deleter](void* p) { deleter->Free(deleter, p); });
    *out = new OrtValue{Value(Tensor(data_type_from_ort(int(type)), dims, std::make_shared<Buffer>(p_data, p_data_len, owner)))};
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetTensorSizeInBytes(const OrtValue* value, size_t* size) {
  ONYX_CAPI_REQUIRE(size, "GetTensorSizeInBytes");
  const Tensor* t = tensor_of(value);
  if (!t) return not_a_tensor(value, "GetTensorSizeInBytes");
  if (t->dtype() == DataType::kString)
    return make_status(ORT_INVALID_ARGUMENT, "GetTensorSizeInBytes: a string tensor (use GetStringTensorDataLength)");
  *size = t->nbytes();
  return nullptr;
}

// The element type and the shape, by reference into the value (valid while it lives).
OrtStatus* ORT_API_CALL GetTensorElementTypeAndShapeDataReference(const OrtValue* value,
                                                                  ONNXTensorElementDataType* elem_type,
                                                                  const int64_t** shape_data, size_t* shape_data_count) {
  ONYX_CAPI_REQUIRE(elem_type, "GetTensorElementTypeAndShapeDataReference");
  ONYX_CAPI_REQUIRE(shape_data, "GetTensorElementTypeAndShapeDataReference");
  ONYX_CAPI_REQUIRE(shape_data_count, "GetTensorElementTypeAndShapeDataReference");
  const Tensor* t = tensor_of(value);
  if (!t) return not_a_tensor(value, "GetTensorElementTypeAndShapeDataReference");
  *elem_type = element_type_of(t->dtype());
  *shape_data = t->shape().data();
  *shape_data_count = t->shape().size();
  return nullptr;
}

OrtStatus* ORT_API_CALL IsTensor(const OrtValue* value, int* out) {
  ONYX_CAPI_REQUIRE(value, "IsTensor");
  ONYX_CAPI_REQUIRE(out, "IsTensor");
  *out = value->value.is_tensor() ? 1 : 0;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetValueType(const OrtValue* value, enum ONNXType* out) {
  ONYX_CAPI_REQUIRE(value, "GetValueType");
  ONYX_CAPI_REQUIRE(out, "GetValueType");
  *out = is_sparse(value)            ? ONNX_TYPE_SPARSETENSOR
         : value->value.is_tensor()   ? ONNX_TYPE_TENSOR
         : value->value.is_sequence() || value->value.is_map_sequence() ? ONNX_TYPE_SEQUENCE
         : value->value.is_map() ? ONNX_TYPE_MAP
                                 : ONNX_TYPE_OPTIONAL;  // none: an optional without a value
  return nullptr;
}

OrtStatus* ORT_API_CALL GetTensorMutableData(OrtValue* value, void** out) {
  ONYX_CAPI_REQUIRE(out, "GetTensorMutableData");
  const Tensor* t = tensor_of(value);
  if (!t) return not_a_tensor(value, "GetTensorMutableData");
  if (t->dtype() == DataType::kString)
    return make_status(ORT_INVALID_ARGUMENT, "GetTensorMutableData: a string tensor (use GetStringTensorContent)");
  *out = const_cast<void*>(t->raw_data());
  return nullptr;
}

OrtStatus* ORT_API_CALL GetTensorData(const OrtValue* value, const void** out) {
  ONYX_CAPI_REQUIRE(out, "GetTensorData");
  const Tensor* t = tensor_of(value);
  if (!t) return not_a_tensor(value, "GetTensorData");
  if (t->dtype() == DataType::kString)
    return make_status(ORT_INVALID_ARGUMENT, "GetTensorData: a string tensor (use GetStringTensorContent)");
  *out = t->raw_data();
  return nullptr;
}

void ORT_API_CALL ReleaseValue(OrtValue* value) { delete value; }

OrtStatus* ORT_API_CALL GetTensorMemoryInfo(const OrtValue* value, const OrtMemoryInfo** mem_info) {
  ONYX_CAPI_REQUIRE(mem_info, "GetTensorMemoryInfo");
  const Tensor* t = tensor_of(value);
  if (!t) return not_a_tensor(value, "GetTensorMemoryInfo");
  if (!t->device().is_cpu()) return not_implemented("GetTensorMemoryInfo of a tensor on a device");
  *mem_info = default_allocator()->Info(default_allocator());
  return nullptr;
}

void ORT_API_CALL MemoryInfoGetDeviceType(const OrtMemoryInfo* ptr, OrtMemoryInfoDeviceType* out) {
  if (!ptr || !out) return;
  *out = ptr->device_type;
}

OrtStatus* ORT_API_CALL TensorAt(OrtValue* value, const int64_t* location_values, size_t location_values_count,
                                 void** out) {
  ONYX_CAPI_REQUIRE(out, "TensorAt");
  const Tensor* t = tensor_of(value);
  if (!t) return not_a_tensor(value, "TensorAt");
  if (t->dtype() == DataType::kString) return make_status(ORT_INVALID_ARGUMENT, "TensorAt: a string tensor");
  if (location_values_count != size_t(t->rank()))
    return make_status(ORT_INVALID_ARGUMENT, "TensorAt: " + std::to_string(location_values_count) +
                                                 " indices for a tensor of rank " + std::to_string(t->rank()));
  if (location_values_count) ONYX_CAPI_REQUIRE(location_values, "TensorAt");
  int64_t offset = 0;
  for (size_t d = 0; d < location_values_count; ++d) {
    const int64_t i = location_values[d], n = t->dim(int64_t(d));
    if (i < 0 || i >= n)
      return make_status(ORT_INVALID_ARGUMENT, "TensorAt: index " + std::to_string(i) + " is out of range for dim " +
                                                   std::to_string(d) + " of size " + std::to_string(n));
    offset = offset * n + i;
  }
  if (is_packed_type(t->dtype()))
    return make_status(ORT_NOT_IMPLEMENTED, std::string("TensorAt: elements of ") + data_type_name(t->dtype()) +
                                                " are packed below a byte and have no address of their own");
  *out = static_cast<char*>(const_cast<void*>(t->raw_data())) + size_t(offset) * t->itemsize();
  return nullptr;
}

OrtStatus* ORT_API_CALL HasValue(const OrtValue* value, int* out) {
  ONYX_CAPI_REQUIRE(value, "HasValue");
  ONYX_CAPI_REQUIRE(out, "HasValue");
  *out = is_sparse(value) || !value->value.is_none();
  return nullptr;
}

OrtStatus* ORT_API_CALL CompareMemoryInfo(const OrtMemoryInfo* info1, const OrtMemoryInfo* info2, int* out) {
  ONYX_CAPI_REQUIRE(info1, "CompareMemoryInfo");
  ONYX_CAPI_REQUIRE(info2, "CompareMemoryInfo");
  ONYX_CAPI_REQUIRE(out, "CompareMemoryInfo");
  *out = info1->name == info2->name && info1->id == info2->id && info1->mem_type == info2->mem_type &&
                 info1->type == info2->type && info1->device_type == info2->device_type &&
                 info1->vendor_id == info2->vendor_id && info1->device_mem_type == info2->device_mem_type
             ? 0
             : -1;
  return nullptr;
}

}  // namespace onyx::capi

