// DataType: the element types of tensors, numbered as ONNX's TensorProto.DataType so that
// conversion from the model is a cast. float16 and bfloat16 are stored as 16-bit patterns
// with explicit conversions to and from float.
//
// The narrow types (core/narrow_types.h converts them): the float8 formats are one byte per
// element; int4/uint4/float4e2m1 are packed two to a byte and int2/uint2 four to a byte, the
// first element in the lowest bits, as in TensorProto's raw_data (a tensor of n elements
// holds data_type_bytes(t, n) bytes). Packed types have no per-element byte size:
// data_type_size() is 0 for them, so code that moves elements as bytes refuses them.
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
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
  kFloat6E2M3 = 27,
  kFloat6E3M2 = 28,
};
inline constexpr int kLastDataTypeCode = 28;

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

// Size in bytes of one element; 0 for kUndefined and the packed sub-byte types. Strings
// report sizeof(std::string).
size_t data_type_size(DataType t);
// Bits of one element (8 * data_type_size, or 4 / 2 for the packed types).
size_t data_type_bits(DataType t);
// Bytes that n elements occupy (packed types round up to whole bytes).
size_t data_type_bytes(DataType t, int64_t n);
// int4, uint4, float4e2m1, int2, uint2: several elements to a byte.
bool is_packed_type(DataType t);
// The five float8 formats, float4e2m1, int4/uint4 and int2/uint2.
bool is_narrow_type(DataType t);
// "float32", "int64", "string", ... (numpy-style names used in every message).
const char* data_type_name(DataType t);
bool is_valid_data_type(int code);
bool is_float_type(DataType t);    // float16, bfloat16, float, double (not the narrow floats)
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
