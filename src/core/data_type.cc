#include "core/data_type.h"

namespace onyx {

uint16_t Float16::from_float(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // Inf or NaN
    return uint16_t(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u | ((abs >> 13) & 0x3ffu) : 0u));
  }
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to >= 65520: overflow
  if (abs < 0x38800000u) {  // result is subnormal or zero
    if (abs < 0x33000000u) return uint16_t(sign);  // < 2^-25 rounds to 0
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14 + (113 - exp) - 1
    uint32_t half = mant >> (shift);
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t h = ((abs - 0x38000000u) >> 13);
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return uint16_t(sign | h);
}

float Float16::to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t out;
  if (exp == 0x1f) {
    out = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      out = sign;
    } else {
      int e = -1;
      do { ++e; mant <<= 1; } while ((mant & 0x400u) == 0);
      out = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else {
    out = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &out, 4);
  return f;
}

uint16_t BFloat16::from_float(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // quiet NaN
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return uint16_t((x + rounding) >> 16);
}

size_t data_type_size(DataType t) {
  switch (t) {
    case DataType::kFloat: case DataType::kInt32: case DataType::kUInt32: return 4;
    case DataType::kDouble: case DataType::kInt64: case DataType::kUInt64: case DataType::kComplex64: return 8;
    case DataType::kComplex128: return 16;
    case DataType::kUInt8: case DataType::kInt8: case DataType::kBool: return 1;
    case DataType::kUInt16: case DataType::kInt16: case DataType::kFloat16: case DataType::kBFloat16: return 2;
    case DataType::kString: return sizeof(std::string);
    case DataType::kUndefined: return 0;
  }
  return 0;
}

const char* data_type_name(DataType t) {
  switch (t) {
    case DataType::kFloat: return "float32";
    case DataType::kUInt8: return "uint8";
    case DataType::kInt8: return "int8";
    case DataType::kUInt16: return "uint16";
    case DataType::kInt16: return "int16";
    case DataType::kInt32: return "int32";
    case DataType::kInt64: return "int64";
    case DataType::kString: return "string";
    case DataType::kBool: return "bool";
    case DataType::kFloat16: return "float16";
    case DataType::kDouble: return "float64";
    case DataType::kUInt32: return "uint32";
    case DataType::kUInt64: return "uint64";
    case DataType::kComplex64: return "complex64";
    case DataType::kComplex128: return "complex128";
    case DataType::kBFloat16: return "bfloat16";
    case DataType::kUndefined: return "undefined";
  }
  return "unknown";
}

bool is_valid_data_type(int code) { return code >= 1 && code <= 16; }

bool is_float_type(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

bool is_integer_type(DataType t) {
  switch (t) {
    case DataType::kUInt8: case DataType::kInt8: case DataType::kUInt16: case DataType::kInt16:
    case DataType::kInt32: case DataType::kInt64: case DataType::kUInt32: case DataType::kUInt64: return true;
    default: return false;
  }
}

bool is_signed_type(DataType t) {
  switch (t) {
    case DataType::kInt8: case DataType::kInt16: case DataType::kInt32: case DataType::kInt64: return true;
    default: return is_float_type(t);
  }
}

}  // namespace onyx
