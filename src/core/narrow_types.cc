#include "core/narrow_types.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace onyx {
namespace {

// A small binary float format: its field widths, bias and special codes (magnitude codes,
// i.e. without the sign bit).
struct SmallFloatFormat {
  int exp_bits, mant_bits, bias;
  uint32_t max_code;       // the largest finite magnitude
  bool has_inf;            // float8e5m2: codes past max_code are Inf (first) and NaNs
  bool unsigned_zero;      // fnuz: no negative zero; the code sign|0 is the only NaN
  bool has_nan;            // float4e2m1 has none
  uint32_t nan_code;       // NaN's magnitude code where NaN carries a sign (fn, e5m2)
};

const SmallFloatFormat& format_of(DataType t) {
  static const SmallFloatFormat e4m3fn{4, 3, 7, 0x7E, false, false, true, 0x7F};
  static const SmallFloatFormat e4m3fnuz{4, 3, 8, 0x7F, false, true, true, 0};
  static const SmallFloatFormat e5m2{5, 2, 15, 0x7B, true, false, true, 0x7E};
  static const SmallFloatFormat e5m2fnuz{5, 2, 16, 0x7F, false, true, true, 0};
  static const SmallFloatFormat e2m1{2, 1, 1, 0x7, false, false, false, 0};
  static const SmallFloatFormat e2m3{2, 3, 1, 0x1F, false, false, false, 0};
  static const SmallFloatFormat e3m2{3, 2, 3, 0x1F, false, false, false, 0};
  switch (t) {
    case DataType::kFloat6E2M3: return e2m3;
    case DataType::kFloat6E3M2: return e3m2;
    case DataType::kFloat8E4M3FN: return e4m3fn;
    case DataType::kFloat8E4M3FNUZ: return e4m3fnuz;
    case DataType::kFloat8E5M2: return e5m2;
    case DataType::kFloat8E5M2FNUZ: return e5m2fnuz;
    default: return e2m1;
  }
}

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// `value` in format `f`, rounded to nearest even (see narrow_types.h for the special values).
uint8_t encode_small_float(const SmallFloatFormat& f, float value, bool saturate) {
  const uint32_t bits = float_bits(value);
  const uint32_t sign_bit = 1u << (f.exp_bits + f.mant_bits);
  const uint32_t sign = (bits >> 31) ? sign_bit : 0;
  const uint32_t abs = bits & 0x7fffffffu;
  const uint32_t nan = f.unsigned_zero ? sign_bit : (sign | f.nan_code);
  if (abs > 0x7f800000u) return uint8_t(f.has_nan ? nan : sign_bit);  // float4e2m1: NaN -> -0
  uint32_t code;
  if (abs == 0x7f800000u) {
    code = f.max_code + 1;  // beyond every finite value
  } else if ((abs >> 23) == 0) {
    code = 0;  // float32 subnormals are far below every narrow format's smallest value
  } else {
    const int e = int(abs >> 23) - 127;
    const int emin = 1 - f.bias;
    const uint64_t mant = (abs & 0x7fffffu) | 0x800000u;  // 24 bits with the leading one
    int shift = 23 - f.mant_bits;
    uint64_t base = 0;
    if (e >= emin) {
      base = uint64_t(e + f.bias) << f.mant_bits;  // exponent field; the leading one is implied
      code = uint32_t(base | ((mant & 0x7fffffu) >> shift));
    } else {
      shift += emin - e;  // a subnormal of the format: units of 2^(emin - mant_bits)
      code = shift >= 40 ? 0 : uint32_t(mant >> shift);
    }
    if (shift < 40) {
      const uint64_t rem = mant & ((uint64_t(1) << shift) - 1), half = uint64_t(1) << (shift - 1);
      if (rem > half || (rem == half && (code & 1u))) ++code;  // a carry moves into the exponent
    }
  }
  if (code > f.max_code) {
    if (saturate || !f.has_nan) code = f.max_code;
    else if (f.has_inf) code = f.max_code + 1;  // e5m2: Inf
    else return uint8_t(nan);
  }
  if (code == 0 && f.unsigned_zero) return 0;
  return uint8_t(sign | code);
}

float decode_small_float(const SmallFloatFormat& f, uint32_t code) {
  const uint32_t sign_bit = 1u << (f.exp_bits + f.mant_bits);
  const bool negative = code & sign_bit;
  const uint32_t mag = code & (sign_bit - 1);
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  if (f.unsigned_zero && code == sign_bit) return kNaN;
  if (f.has_nan && !f.unsigned_zero && mag > f.max_code) {
    if (f.has_inf && mag == f.max_code + 1) return negative ? -INFINITY : INFINITY;
    return negative ? -kNaN : kNaN;
  }
  const uint32_t exp = mag >> f.mant_bits, m = mag & ((1u << f.mant_bits) - 1);
  const float v = exp == 0 ? std::ldexp(float(m), 1 - f.bias - f.mant_bits)
                           : std::ldexp(float(m + (1u << f.mant_bits)), int(exp) - f.bias - f.mant_bits);
  return negative ? -v : v;
}

uint8_t encode_e8m0(float value, bool saturate, E8M0Rounding rounding) {
  const uint32_t bits = float_bits(value);  // the sign is ignored: negative input is unspecified
  uint32_t exponent = (bits >> 23) & 0xFF;
  if (exponent == 0xFF) return 0xFF;
  bool up = false;
  switch (rounding) {
    case E8M0Rounding::kUp: up = (bits & 0x7fffffu) != 0; break;
    case E8M0Rounding::kDown: break;
    case E8M0Rounding::kNearest: {
      const bool guard = bits & 0x400000u, round = bits & 0x200000u, sticky = bits & 0x1fffffu;
      up = guard && (round || sticky || exponent > 0);
      break;
    }
  }
  if (up && !(saturate && exponent == 0xFE)) ++exponent;  // 0xFE + 1 without saturate: NaN
  return uint8_t(exponent);
}

// Decoding tables, one per format, built once.
struct DecodeTables {
  std::array<float, 256> e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0;
  std::array<float, 16> e2m1;
  std::array<float, 64> e2m3, e3m2;
  DecodeTables() {
    for (uint32_t c = 0; c < 256; ++c) {
      e4m3fn[c] = decode_small_float(format_of(DataType::kFloat8E4M3FN), c);
      e4m3fnuz[c] = decode_small_float(format_of(DataType::kFloat8E4M3FNUZ), c);
      e5m2[c] = decode_small_float(format_of(DataType::kFloat8E5M2), c);
      e5m2fnuz[c] = decode_small_float(format_of(DataType::kFloat8E5M2FNUZ), c);
      e8m0[c] = c == 0xFF ? std::numeric_limits<float>::quiet_NaN() : std::ldexp(1.0f, int(c) - 127);
    }
    for (uint32_t c = 0; c < 16; ++c) e2m1[c] = decode_small_float(format_of(DataType::kFloat4E2M1), c);
    for (uint32_t c = 0; c < 64; ++c) {
      e2m3[c] = decode_small_float(format_of(DataType::kFloat6E2M3), c);
      e3m2[c] = decode_small_float(format_of(DataType::kFloat6E3M2), c);
    }
  }
};

const DecodeTables& tables() {
  static const DecodeTables t;
  return t;
}

}  // namespace

bool is_narrow_float_type(DataType t) {
  switch (t) {
    case DataType::kFloat8E4M3FN: case DataType::kFloat8E4M3FNUZ: case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ: case DataType::kFloat8E8M0: case DataType::kFloat4E2M1:
    case DataType::kFloat6E2M3: case DataType::kFloat6E3M2: return true;
    default: return false;
  }
}

bool is_narrow_int_type(DataType t) {
  return t == DataType::kInt4 || t == DataType::kUInt4 || t == DataType::kInt2 || t == DataType::kUInt2;
}

float narrow_float_to_float(DataType type, uint8_t code) {
  const DecodeTables& t = tables();
  switch (type) {
    case DataType::kFloat8E4M3FN: return t.e4m3fn[code];
    case DataType::kFloat8E4M3FNUZ: return t.e4m3fnuz[code];
    case DataType::kFloat8E5M2: return t.e5m2[code];
    case DataType::kFloat8E5M2FNUZ: return t.e5m2fnuz[code];
    case DataType::kFloat8E8M0: return t.e8m0[code];
    case DataType::kFloat4E2M1: return t.e2m1[code & 0xF];
    case DataType::kFloat6E2M3: return t.e2m3[code & 0x3F];
    case DataType::kFloat6E3M2: return t.e3m2[code & 0x3F];
    default: return std::numeric_limits<float>::quiet_NaN();
  }
}

uint8_t float_to_narrow_float(DataType type, float value, bool saturate, E8M0Rounding rounding) {
  if (type == DataType::kFloat8E8M0) return encode_e8m0(value, saturate, rounding);
  return encode_small_float(format_of(type), value, saturate);
}

float float_rounded_to_odd(double value) {
  if (!std::isfinite(value)) return float(value);
  float f = float(value);  // to nearest
  if (double(f) == value) return f;
  if (std::fabs(double(f)) > std::fabs(value)) f = std::nextafter(f, 0.0f);  // now toward zero
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits |= 1u;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

double narrow_element_value(const void* data, DataType type, int64_t i) {
  const uint8_t code = narrow_code_at(data, type, i);
  if (is_narrow_int_type(type)) return narrow_int_value(type, code);
  return narrow_float_to_float(type, code);
}

}  // namespace onyx
