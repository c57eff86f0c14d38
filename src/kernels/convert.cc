#include "kernels/convert.h"

#include "kernels/half_convert.h"
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/half_convert.h"

namespace onyx {
namespace {

template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// double -> float rounded to nearest even, without the UB of an out-of-range static_cast.
float double_to_float(double d) {
  constexpr double kMax = std::numeric_limits<float>::max();
  constexpr double kOverflow = 0x1.ffffffp127;  // FLT_MAX + half an ulp; the tie goes to inf
  if (d >= kOverflow) return std::numeric_limits<float>::infinity();
  if (d <= -kOverflow) return -std::numeric_limits<float>::infinity();
  if (d > kMax) return float(kMax);
  if (d < -kMax) return -float(kMax);
  return static_cast<float>(d);
}

// double -> float rounded to odd (truncate, then set the last bit when inexact). A second
// rounding of the result to float16 / bfloat16 then equals one correct rounding of d.
float round_to_odd_float(double d) {
  if (std::isnan(d) || std::isinf(d)) return static_cast<float>(d);
  constexpr double kMax = std::numeric_limits<float>::max();
  if (d > kMax) return float(kMax);    // FLT_MAX is odd
  if (d < -kMax) return -float(kMax);
  float f = static_cast<float>(d);
  if (double(f) == d) return f;
  if (std::fabs(double(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= 1u;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Truncates toward zero, saturating at To's range; NaN -> 0.
template <typename To>
To float_to_int(double v) {
  if (std::isnan(v)) return To(0);
  const double t = std::trunc(v);
  const double lo = double(std::numeric_limits<To>::min());                  // 0 or -2^k: exact
  const double hi = std::ldexp(1.0, std::numeric_limits<To>::digits);        // max + 1: exact
  if (t < lo) return std::numeric_limits<To>::min();
  if (t >= hi) return std::numeric_limits<To>::max();
  return static_cast<To>(t);
}

template <typename To, typename From>
To convert_number(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_half_v<From>) {
    return convert_number<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_half_v<To>) {
    if constexpr (std::is_same_v<From, float>) return To(v);
    else return To(round_to_odd_float(static_cast<double>(v)));
  } else if constexpr (std::is_same_v<To, float> && std::is_same_v<From, double>) {
    return double_to_float(v);
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(v);
  } else if constexpr (std::is_floating_point_v<From>) {
    return float_to_int<To>(static_cast<double>(v));
  } else {
    return static_cast<To>(v);  // integer or bool -> integer: two's complement wrap
  }
}

// ---- numeric -> string ----

std::string format_digits(bool negative, const std::string& digits, int exp, long double magnitude) {
  std::string out = negative ? "-" : "";
  const int n = int(digits.size());
  if (magnitude == 0 || (magnitude >= 1e-4L && magnitude < 1e16L)) {
    if (exp >= 0) {
      if (n <= exp + 1) {
        out += digits;
        out.append(size_t(exp + 1 - n), '0');
        out += ".0";
      } else {
        out += digits.substr(0, size_t(exp + 1));
        out += '.';
        out += digits.substr(size_t(exp + 1));
      }
    } else {
      out += "0.";
      out.append(size_t(-exp - 1), '0');
      out += digits;
    }
    return out;
  }
  out += digits[0];
  if (n > 1) {
    out += '.';
    out += digits.substr(1);
  }
  out += exp < 0 ? "e-" : "e+";
  const std::string e = std::to_string(exp < 0 ? -exp : exp);
  if (e.size() < 2) out += '0';
  out += e;
  return out;
}

// Value converted back through the 16-bit type `type`, as a bit pattern.
uint16_t half_bits(double v, DataType type) {
  const float f = round_to_odd_float(v);
  return type == DataType::kFloat16 ? Float16::from_float(f) : BFloat16::from_float(f);
}

std::string format_integer(int64_t v) { return std::to_string(v); }
std::string format_integer(uint64_t v) { return std::to_string(v); }

template <typename T>
std::string format_element(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) return format_integer(int64_t(v));
    else return format_integer(uint64_t(v));
  } else {
    return format_float_shortest(static_cast<double>(static_cast<compute_t<T>>(v)), data_type_of<T>);
  }
}

// ---- string -> numeric ----

std::string_view trim(std::string_view s) {
  const char* ws = " \t\n\r\f\v";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// A decimal (plain or scientific) or a NaN / Inf name, parsed as F with one rounding.
template <typename F>
std::optional<F> parse_float(std::string_view s) {
  s = trim(s);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (iequals(s, "nan")) return std::numeric_limits<F>::quiet_NaN();
  if (iequals(s, "inf") || iequals(s, "infinity"))
    return negative ? -std::numeric_limits<F>::infinity() : std::numeric_limits<F>::infinity();
  if (s.empty() || s[0] == '+' || s[0] == '-') return std::nullopt;
  F v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (end != s.data() + s.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    const std::string copy(s);  // from_chars leaves v unset: strtod gives inf or 0
    v = static_cast<F>(std::is_same_v<F, float> ? std::strtof(copy.c_str(), nullptr) : std::strtod(copy.c_str(), nullptr));
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  return negative ? -v : v;
}

template <typename To>
std::optional<To> parse_integer(std::string_view s) {
  s = trim(s);
  std::string_view body = s;
  if (!body.empty() && body[0] == '+') body.remove_prefix(1);
  const char* end = body.data() + body.size();
  if (!body.empty() && body[0] != '-') {
    uint64_t u = 0;
    const auto r = std::from_chars(body.data(), end, u);
    if (r.ec == std::errc() && r.ptr == end)
      return std::is_signed_v<To> && u > uint64_t(std::numeric_limits<int64_t>::max())
                 ? std::numeric_limits<To>::max()
                 : static_cast<To>(u);
  } else if (!body.empty()) {
    int64_t i = 0;
    const auto r = std::from_chars(body.data(), end, i);
    if (r.ec == std::errc() && r.ptr == end) return static_cast<To>(i);
  }
  const std::optional<double> d = parse_float<double>(s);  // "2.7", "1e3", out-of-range digits
  if (!d) return std::nullopt;
  return float_to_int<To>(*d);
}

template <typename To>
Result<To> parse_element(const std::string& s) {
  std::optional<To> v;
  if constexpr (std::is_same_v<To, std::string>) {
    v = s;
  } else if constexpr (std::is_same_v<To, bool>) {
    if (iequals(trim(s), "true")) v = true;
    else if (iequals(trim(s), "false")) v = false;
    else if (const auto d = parse_float<double>(s)) v = *d != 0;
  } else if constexpr (std::is_integral_v<To>) {
    v = parse_integer<To>(s);
  } else if constexpr (std::is_floating_point_v<To>) {
    v = parse_float<To>(s);
  } else {  // float16, bfloat16
    if (const auto d = parse_float<double>(s)) v = To(round_to_odd_float(*d));
  }
  if (!v) return invalid_argument("cannot convert string \"", s, "\" to ", data_type_name(data_type_of<To>));
  return std::move(*v);
}

constexpr int64_t kConvertGrain = 16384;

}  // namespace

std::string format_float_shortest(double value, DataType source_type) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buf[64];
  char* const end = buf + sizeof(buf);
  std::to_chars_result r{buf, std::errc()};
  if (source_type == DataType::kFloat) {
    r = std::to_chars(buf, end, static_cast<float>(value), std::chars_format::scientific);
  } else if (source_type == DataType::kDouble) {
    r = std::to_chars(buf, end, value, std::chars_format::scientific);
  } else {
    // 16-bit types: the fewest significant digits that convert back to the same bits.
    const uint16_t want = half_bits(value, source_type);
    for (int precision = 0; precision <= 9; ++precision) {
      r = std::to_chars(buf, end, value, std::chars_format::scientific, precision);
      double back = 0;
      std::from_chars(buf, r.ptr, back);
      if (half_bits(back, source_type) == want) break;
    }
  }
  // buf holds "[-]d[.ddd]e(+|-)xx".
  const std::string_view text(buf, size_t(r.ptr - buf));
  const bool negative = !text.empty() && text[0] == '-';
  const size_t e_pos = text.find('e');
  std::string digits;
  for (char c : text.substr(negative ? 1 : 0, e_pos - (negative ? 1 : 0)))
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int exp = 0;
  std::string_view exp_text = text.substr(e_pos + 1);
  if (!exp_text.empty() && exp_text[0] == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp);
  return format_digits(negative, digits, exp, std::fabs(static_cast<long double>(value)));
}

Status convert_elements(const Tensor& in, Tensor& out, const CastOptions& options) {
  if (in.numel() != out.numel())
    return error(StatusCode::kInternal, "convert_elements: ", in.describe(), " into ", out.describe());
  if (is_narrow_type(in.dtype()) || is_narrow_type(out.dtype())) return convert_narrow_elements(in, out, options);
  const int64_t n = in.numel();
  return dispatch<ONYX_ALL_TYPES>(in.dtype(), [&]<typename From>() -> Status {
    return dispatch<ONYX_ALL_TYPES>(out.dtype(), [&]<typename To>() -> Status {
      const From* src = in.data<From>();
      To* dst = out.data<To>();
      if constexpr (std::is_same_v<From, std::string>) {
        for (int64_t i = 0; i < n; ++i) {
          ONYX_ASSIGN_OR_RETURN(dst[i], parse_element<To>(src[i]));
        }
      } else if constexpr (std::is_same_v<To, std::string>) {
        for (int64_t i = 0; i < n; ++i) dst[i] = format_element(src[i]);
      } else if constexpr (std::is_same_v<To, From>) {
        if (n > 0) std::memcpy(dst, src, size_t(n) * sizeof(To));
      } else if constexpr (std::is_same_v<From, Float16> && std::is_same_v<To, float>) {
        parallel_for(n, kConvertGrain, [&](int64_t begin, int64_t stop) {
          // (casts that compile for every From and To: clang checks this branch's calls before it
          // knows the types never reach it)
          half_to_float(reinterpret_cast<const uint16_t*>(src) + begin, reinterpret_cast<float*>(dst) + begin,
                        stop - begin);
        });
      } else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Float16>) {
        parallel_for(n, kConvertGrain, [&](int64_t begin, int64_t stop) {
          float_to_half(reinterpret_cast<const float*>(src) + begin, reinterpret_cast<uint16_t*>(dst) + begin,
                        stop - begin);
        });
      } else {
        parallel_for(n, kConvertGrain, [&](int64_t begin, int64_t stop) {
          for (int64_t i = begin; i < stop; ++i) dst[i] = convert_number<To>(src[i]);
        });
      }
      return Status::Ok();
    });
  });
}

std::optional<DataType> data_type_from_onnx_name(std::string_view name) {
  static constexpr const char* kNames[] = {
      "UNDEFINED", "FLOAT",  "UINT8",  "INT8",   "UINT16",    "INT16",      "INT32",    "INT64", "STRING",
      "BOOL",      "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1",
      "FLOAT8E8M0", "UINT2", "INT2", "FLOAT6E2M3", "FLOAT6E3M2"};
  for (int code = 1; code < int(std::size(kNames)); ++code)
    if (iequals(name, kNames[code])) return DataType(code);
  return std::nullopt;
}

}  // namespace onyx
