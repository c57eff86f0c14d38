// The narrow element types: encoding and decoding of the float8 formats, float8e8m0,
// float4e2m1 and the 4- and 2-bit integers, and element access in packed storage.
//
// Formats (ONNX's TensorProto.DataType; bias and codes as the ONNX spec gives them):
//  - float8e4m3fn   1 sign, 4 exponent (bias 7), 3 mantissa; no infinity; NaN is S.1111.111; max 448.
//  - float8e4m3fnuz bias 8; NaN is 0x80 (the only one), no negative zero; max 240.
//  - float8e5m2     bias 15, IEEE-like: infinities S.11111.00, NaNs S.11111.{01,10,11}; max 57344.
//  - float8e5m2fnuz bias 16; NaN is 0x80, no infinity, no negative zero; max 57344.
//  - float8e8m0     an unsigned power of two 2^(code - 127); 0xFF is NaN; no zero, no sign.
//  - float4e2m1     1 sign, 2 exponent (bias 1), 1 mantissa: 0, 0.5, 1, 1.5, 2, 3, 4, 6; no NaN/Inf.
//  - float6e2m3     1 sign, 2 exponent (bias 1), 3 mantissa: max 7.5, smallest 0.125; no NaN/Inf.
//  - float6e3m2     1 sign, 3 exponent (bias 3), 2 mantissa: max 28, smallest 0.0625; no NaN/Inf.
//  - int4 [-8, 7], uint4 [0, 15], int2 [-2, 1], uint2 [0, 3] (two's complement).
//
// Encoding from float rounds to nearest even (float8, float4). With `saturate` (Cast's
// default) values beyond the largest finite value, infinities included, become that value;
// without it they become infinity (float8e5m2) or NaN (the others), as in Cast's tables.
// float4e2m1 and the float6 formats always saturate, and NaN becomes -0 (0x8, 0x20), as
// ml_dtypes does.
//
// Storage: 4- and 2-bit elements pack two or four a byte, low bits first; 6-bit elements form
// a little-endian bit stream, four in three bytes (element i at bits 6i .. 6i + 5).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/data_type.h"

namespace onyx {

// float8e8m0 rounding (Cast's round_mode): `up` away from zero, `down` toward zero,
// `nearest` to the nearer power of two (ties up).
enum class E8M0Rounding { kUp, kDown, kNearest };

// The float value of an element code of a narrow float type (float8 formats, float8e8m0,
// float4e2m1 with the code in the low 4 bits, float6 in the low 6).
float narrow_float_to_float(DataType type, uint8_t code);
// The code for `value` in a narrow float type (float4e2m1: in the low 4 bits).
uint8_t float_to_narrow_float(DataType type, float value, bool saturate,
                              E8M0Rounding rounding = E8M0Rounding::kUp);

bool is_narrow_float_type(DataType t);  // float8 (all five), float6 (both) and float4e2m1
bool is_narrow_int_type(DataType t);    // int4, uint4, int2, uint2

// The value of a narrow integer code (sign-extended for int4 / int2).
inline int32_t narrow_int_value(DataType type, uint8_t code) {
  switch (type) {
    case DataType::kInt4: return int32_t(code & 0x8 ? int(code & 0xF) - 16 : int(code & 0xF));
    case DataType::kInt2: return int32_t(code & 0x2 ? int(code & 0x3) - 4 : int(code & 0x3));
    case DataType::kUInt4: return int32_t(code & 0xF);
    default: return int32_t(code & 0x3);  // uint2
  }
}
// The code of an integer in a narrow integer type: its low 4 (or 2) bits, i.e. wrapped.
inline uint8_t narrow_int_code(DataType type, int64_t v) {
  return uint8_t(uint64_t(v) & (data_type_bits(type) == 4 ? 0xFu : 0x3u));
}

// Element i of packed (or one-byte) narrow storage: its code.
inline uint8_t narrow_code_at(const void* data, DataType type, int64_t i) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  switch (data_type_bits(type)) {
    case 4: return uint8_t((bytes[i >> 1] >> ((i & 1) * 4)) & 0xF);
    case 2: return uint8_t((bytes[i >> 2] >> ((i & 3) * 2)) & 0x3);
    case 6: {
      const int64_t bit = i * 6, at = bit >> 3;
      const int shift = int(bit & 7);
      uint32_t word = bytes[at];
      if (shift > 2) word |= uint32_t(bytes[at + 1]) << 8;  // the element runs into the next byte
      return uint8_t((word >> shift) & 0x3F);
    }
    default: return bytes[i];
  }
}
// Writes element i's code (only its bits; the other elements of the byte are kept).
inline void set_narrow_code(void* data, DataType type, int64_t i, uint8_t code) {
  uint8_t* bytes = static_cast<uint8_t*>(data);
  switch (data_type_bits(type)) {
    case 4: {
      const int shift = int(i & 1) * 4;
      bytes[i >> 1] = uint8_t((bytes[i >> 1] & ~(0xF << shift)) | ((code & 0xF) << shift));
      break;
    }
    case 2: {
      const int shift = int(i & 3) * 2;
      bytes[i >> 2] = uint8_t((bytes[i >> 2] & ~(0x3 << shift)) | ((code & 0x3) << shift));
      break;
    }
    case 6: {
      const int64_t bit = i * 6, at = bit >> 3;
      const int shift = int(bit & 7);
      bytes[at] = uint8_t((bytes[at] & ~(0x3F << shift)) | ((code & 0x3F) << shift));
      if (shift > 2) {  // the high bits go to the next byte
        const int spill = shift - 2;
        bytes[at + 1] = uint8_t((bytes[at + 1] & ~((1 << spill) - 1)) | ((code & 0x3F) >> (8 - shift)));
      }
      break;
    }
    default: bytes[i] = code;
  }
}

// `value` as a float rounded to odd: truncated toward zero, with the lowest mantissa bit set
// when that lost anything. Encoding the result to any format of at most 21 mantissa bits
// (every narrow float has at most 3) rounds as encoding `value` itself would: a single rounding.
float float_rounded_to_odd(double value);

// Element i of narrow storage as a double (NaN for NaN codes).
double narrow_element_value(const void* data, DataType type, int64_t i);

}  // namespace onyx
