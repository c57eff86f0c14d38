// Reading the (scale, zero point) pairs of the com.microsoft QLinear* ops, and the
// quantisation they share: q(v) = saturate(round_half_even(v) + zero_point), computed in
// float32 in the order each kernel's comment gives (its kernel cases follow the same order).
#pragma once
#include <cstdint>

#include "core/status.h"
#include "kernels/kernel.h"
#include "kernels/quantize.h"

namespace onyx {

struct QParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

inline bool is_qlinear_type(DataType t) { return t == DataType::kUInt8 || t == DataType::kInt8; }

// Input `scale_index` (a float32 / float16 scalar) and `zp_index` (a scalar of type `type`,
// 0 when omitted and `zp_optional`).
inline Result<QParams> read_qparams(const KernelContext& ctx, int scale_index, int zp_index, DataType type,
                                    const char* name, bool zp_optional = true) {
  QParams p;
  if (!ctx.has_input(scale_index)) return invalid_argument(name, "_scale is missing");
  const Tensor& s = ctx.input(scale_index);
  if (!is_float_type(s.dtype()) || s.numel() != 1)
    return invalid_argument(name, "_scale must be a float scalar, got ", s.describe());
  p.scale = float(s.get_double(0));
  if (!ctx.has_input(zp_index)) {
    if (!zp_optional) return invalid_argument(name, "_zero_point is missing");
    return p;
  }
  const Tensor& z = ctx.input(zp_index);
  if (z.dtype() != type || z.numel() != 1)
    return invalid_argument(name, "_zero_point must be a scalar of type ", data_type_name(type), ", got ", z.describe());
  p.zero_point = int32_t(z.get_int64(0));
  return p;
}

// saturate(round_half_even(v) + zero_point) into Q.
template <typename Q>
inline Q quantize_to(float v, int32_t zero_point) {
  if (std::isnan(v)) return Q(zero_point);
  return saturate_round<Q>(std::nearbyint(v) + float(zero_point));
}

}  // namespace onyx
