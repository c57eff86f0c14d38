// The DLPack exchange ABI (dmlc/dlpack, version 0.x "dltensor" capsules), declared here from
// its published specification: the structs are laid out exactly as the spec fixes them, so a
// capsule made here is read by numpy.from_dlpack, torch.from_dlpack and any other consumer.
//
// Capsule protocol: the producer returns a PyCapsule named "dltensor" that points to a
// DLManagedTensor. A consumer that takes it renames the capsule "used_dltensor" and calls
// `deleter` when done; a capsule that is never consumed calls `deleter` when it dies.
#pragma once
#include <cstdint>

namespace onyx::python::dlpack {

enum DeviceType : int32_t { kCPU = 1, kCUDA = 2, kCUDAHost = 3 };
enum TypeCode : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kOpaqueHandle = 3, kBfloat = 4, kComplex = 5, kBool = 6 };

struct Device {
  int32_t device_type;
  int32_t device_id;
};

struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null means compact row-major
  uint64_t byte_offset;
};

struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

inline constexpr const char* kCapsuleName = "dltensor";
inline constexpr const char* kUsedCapsuleName = "used_dltensor";

}  // namespace onyx::python::dlpack
