// convert_elements for the narrow types (rules in kernels/convert.h): a narrow source is
// decoded to float32 or int32, a narrow target encoded from float32 or int64, and the rest
// of the way is the ordinary conversion. A double source reaches a narrow float target
// through float32 rounded to odd, which keeps the one rounding to nearest exact.
#include <cstring>

#include "core/parallel.h"
#include "kernels/convert.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

constexpr int64_t kGrain = 1 << 14;

// `in` (narrow) decoded into a float32 (narrow floats) or int32 (narrow integers) tensor.
Tensor decode_narrow(const Tensor& in) {
  const DataType type = in.dtype();
  const void* src = in.raw_data();
  const int64_t n = in.numel();
  if (is_narrow_int_type(type)) {
    Tensor wide(DataType::kInt32, in.shape());
    int32_t* dst = wide.data<int32_t>();
    parallel_for(n, kGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) dst[i] = narrow_int_value(type, narrow_code_at(src, type, i));
    });
    return wide;
  }
  Tensor wide(DataType::kFloat, in.shape());
  float* dst = wide.data<float>();
  parallel_for(n, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) dst[i] = narrow_float_to_float(type, narrow_code_at(src, type, i));
  });
  return wide;
}

// Writes every element of `wide` (float32 for a narrow float target, int64 for a narrow
// integer one) into narrow `out`. Packed targets are written a byte (or, for 6 bits, three
// bytes) at a time, so that threads never share a byte.
void encode_narrow(const Tensor& wide, Tensor& out, const CastOptions& options) {
  const DataType type = out.dtype();
  void* dst = out.raw_data();
  const int64_t n = out.numel();
  // Elements written together so that threads never share a byte: one (8 bits and more), a byte
  // (4 and 2 bits), or four in three bytes (6 bits).
  const size_t bits = data_type_bits(type);
  const int64_t per_unit = bits >= 8 ? 1 : bits == 6 ? 4 : int64_t(8 / bits);
  const int64_t units = (n + per_unit - 1) / per_unit;
  auto code_of = [&](int64_t i) -> uint8_t {
    if (is_narrow_int_type(type)) return narrow_int_code(type, wide.data<int64_t>()[i]);
    return float_to_narrow_float(type, wide.data<float>()[i], options.saturate, options.e8m0_rounding);
  };
  parallel_for(units, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      for (int64_t i = b * per_unit; i < std::min(n, (b + 1) * per_unit); ++i) set_narrow_code(dst, type, i, code_of(i));
    }
  });
}

}  // namespace

Result<CastOptions> cast_options_from_node(const KernelInfo& info, const char* op) {
  CastOptions options;
  options.saturate = info.attr_int("saturate", 1) != 0;
  const std::string mode = info.attr_string("round_mode", "up");
  if (mode == "up") options.e8m0_rounding = E8M0Rounding::kUp;
  else if (mode == "down") options.e8m0_rounding = E8M0Rounding::kDown;
  else if (mode == "nearest") options.e8m0_rounding = E8M0Rounding::kNearest;
  else return invalid_model(op, ": round_mode '", mode, "' is not one of up, down, nearest");
  return options;
}

Status convert_narrow_elements(const Tensor& in, Tensor& out, const CastOptions& options) {
  if (in.dtype() == out.dtype()) {
    if (in.nbytes() > 0) std::memcpy(out.raw_data(), in.raw_data(), in.nbytes());
    return Status::Ok();
  }
  if (in.dtype() == DataType::kComplex64 || in.dtype() == DataType::kComplex128)
    return not_implemented("Cast from ", data_type_name(in.dtype()), " to ", data_type_name(out.dtype()));
  const Tensor source = is_narrow_type(in.dtype()) ? decode_narrow(in) : in;
  if (!is_narrow_type(out.dtype())) return convert_elements(source, out, options);
  const DataType via = is_narrow_int_type(out.dtype()) ? DataType::kInt64 : DataType::kFloat;
  Tensor wide = source;
  if (source.dtype() == DataType::kDouble && via == DataType::kFloat) {
    // Rounded to odd, so that encoding rounds once (double -> float -> float8 to nearest would
    // round twice and can land one code off).
    ONYX_ASSIGN_OR_RETURN(wide, Tensor::create(via, source.shape(), nullptr, /*zero_fill=*/false));
    const double* src = source.data<double>();
    float* dst = wide.data<float>();
    parallel_for(source.numel(), kGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) dst[i] = float_rounded_to_odd(src[i]);
    });
  } else if (source.dtype() != via) {
    ONYX_ASSIGN_OR_RETURN(wide, Tensor::create(via, source.shape(), nullptr, /*zero_fill=*/false));
    ONYX_RETURN_IF_ERROR(convert_elements(source, wide, options));
  }
  encode_narrow(wide, out, options);
  return Status::Ok();
}

}  // namespace onyx
