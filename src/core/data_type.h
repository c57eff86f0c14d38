// DataType: the element types of tensors, numbered as ONNX's TensorProto.DataType so that
// conversion from the model is a cast. float16 and bfloat16 are stored as 16-bit patterns
// with explicit conversions to and from float.
#pragma once
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>

namespace onyx {

enum class DataType : int {
  kUndefined = 0,
  kFloat = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};

// IEEE 754 binary16, round-to-nearest-even from float.
struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float f) : bits(from_float(f)) {}
  operator float() const { return to_float(bits); }  // NOLINT: numeric-like
  static uint16_t from_float(float f);
  static float to_float(uint16_t h);
};

// bfloat16: the upper half of a float32, round-to-nearest-even from float.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(from_float(f)) {}
  operator float() const { return to_float(bits); }  // NOLINT
  static uint16_t from_float(float f);
  static float to_float(uint16_t b) {
    uint32_t u = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

// Size in bytes of one element; 0 for kUndefined. Strings report sizeof(std::string).
size_t data_type_size(DataType t);
// "float32", "int64", "string", ... (numpy-style names used in every message).
const char* data_type_name(DataType t);
bool is_valid_data_type(int code);
bool is_float_type(DataType t);    // float16, bfloat16, float, double
bool is_integer_type(DataType t);  // signed and unsigned integers (not bool)
bool is_signed_type(DataType t);

// Maps a C++ element type to its DataType.
template <typename T> struct DataTypeOf;
#define ONYX_DTYPE_OF(T, E) template <> struct DataTypeOf<T> { static constexpr DataType value = DataType::E; }
ONYX_DTYPE_OF(float, kFloat);
ONYX_DTYPE_OF(double, kDouble);
ONYX_DTYPE_OF(Float16, kFloat16);
ONYX_DTYPE_OF(BFloat16, kBFloat16);
ONYX_DTYPE_OF(int8_t, kInt8);
ONYX_DTYPE_OF(int16_t, kInt16);
ONYX_DTYPE_OF(int32_t, kInt32);
ONYX_DTYPE_OF(int64_t, kInt64);
ONYX_DTYPE_OF(uint8_t, kUInt8);
ONYX_DTYPE_OF(uint16_t, kUInt16);
ONYX_DTYPE_OF(uint32_t, kUInt32);
ONYX_DTYPE_OF(uint64_t, kUInt64);
ONYX_DTYPE_OF(bool, kBool);
ONYX_DTYPE_OF(std::string, kString);
ONYX_DTYPE_OF(std::complex<float>, kComplex64);
ONYX_DTYPE_OF(std::complex<double>, kComplex128);
#undef ONYX_DTYPE_OF

template <typename T> inline constexpr DataType data_type_of = DataTypeOf<T>::value;

}  // namespace onyx
