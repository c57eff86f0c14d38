// Linear quantisation helpers shared by QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear, QLinearConv and QLinearMatMul.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/shape.h"
#include "core/status.h"
#include "core/tensor.h"

namespace onyx {

// v rounded half to even and saturated into Q's range; NaN gives 0.
template <typename Q, typename F>
Q saturate_round(F v) {
  if (std::isnan(v)) return Q(0);
  v = std::nearbyint(v);
  constexpr F lo = F(std::numeric_limits<Q>::lowest()), hi = F(std::numeric_limits<Q>::max());
  return v <= lo ? std::numeric_limits<Q>::lowest() : v >= hi ? std::numeric_limits<Q>::max() : Q(v);
}

// y[i] = saturate(round_half_even(x[i] / scale) + zero_point) for n floats into uint8 or int8
// (NaN gives 0), vectorised and threaded (quantize_span.cc); false for other output types.
bool quantize_float_span(const float* x, int64_t n, float scale, float zero_point, DataType type, void* y);

// Which scale / zero point applies to element i of x: per tensor (count 1), or per slice of
// x along an axis (count = x.dim(axis), inner = elements per step along that axis).
struct QuantAxis {
  int64_t count = 1, inner = 1;
  int64_t index(int64_t i) const { return count == 1 ? 0 : (i / inner) % count; }
  // Calls fn(begin, end, p) for each run of consecutive elements [begin, end) of an n-element
  // tensor that share parameter p, in order (one run per tensor when per tensor).
  template <typename Fn>
  void for_each_run(int64_t n, Fn&& fn) const {
    if (count == 1) {
      if (n > 0) fn(int64_t(0), n, int64_t(0));
      return;
    }
    for (int64_t begin = 0; begin < n; begin += inner) fn(begin, std::min(n, begin + inner), (begin / inner) % count);
  }
};

// Checks that `scale` (and `zero_point`, when defined) are per-tensor (one element) or, from
// opset 13, 1-D of x.dim(axis) elements, and returns the layout.
inline Result<QuantAxis> resolve_quant_axis(const Shape& x, const Tensor& scale, const Tensor* zero_point,
                                            int64_t axis, int64_t opset) {
  if (!scale.defined()) return invalid_argument("the scale input is missing");
  if (zero_point && zero_point->defined() && zero_point->shape() != scale.shape())
    return invalid_argument("zero point ", zero_point->describe(), " must have the shape of scale ", scale.describe());
  QuantAxis q;
  if (scale.rank() == 0 || (scale.rank() == 1 && scale.numel() == 1)) return q;
  const int64_t rank = int64_t(x.size());
  if (opset < 13 || scale.rank() != 1)
    return invalid_argument("scale ", scale.describe(), " must be a scalar", opset >= 13 ? " or 1-D" : "");
  if (axis < -rank || axis >= rank) return invalid_argument("axis ", axis, " is out of range for rank ", rank);
  if (axis < 0) axis += rank;
  if (scale.dim(0) != x[size_t(axis)])
    return invalid_argument("scale ", scale.describe(), " must have ", x[size_t(axis)], " elements (dim ", axis,
                            " of ", shape_to_string(x), ")");
  q.count = scale.dim(0);
  for (int64_t d = axis + 1; d < rank; ++d) q.inner *= x[size_t(d)];
  return q;
}

}  // namespace onyx
