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
  // (a scalar and a one-element 1-D tensor are both per-tensor, and may be mixed)
  if (zero_point && zero_point->defined() && zero_point->shape() != scale.shape() &&
      !(zero_point->numel() == 1 && scale.numel() == 1 && zero_point->rank() <= 1 && scale.rank() <= 1))
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

// Which scale / zero point applies to element i of x, for every granularity: per tensor,
// per axis, or blocked (block_size > 0: scale has x's rank, and along `axis` one entry per
// `block` consecutive elements).
struct QuantIndex {
  enum class Kind { kTensor, kAxis, kBlocked } kind = Kind::kTensor;
  int64_t dim = 1, scale_dim = 1, block = 1, inner = 1;
  int64_t operator()(int64_t i) const {
    switch (kind) {
      case Kind::kTensor: return 0;
      case Kind::kAxis: return (i / inner) % dim;
      case Kind::kBlocked: {
        const int64_t in = i % inner, a = (i / inner) % dim, outer = i / (inner * dim);
        return (outer * scale_dim + a / block) * inner + in;
      }
    }
    return 0;
  }
};

// resolve_quant_axis for block_size 0; with block_size > 0 checks the blocked layout: scale
// (and zero_point) of x's rank, equal to x's shape but along `axis`, where it has
// ceil(dim / block_size) entries (block_size within the spec's accepted range).
inline Result<QuantIndex> resolve_quant_index(const Shape& x, const Tensor& scale, const Tensor* zero_point,
                                              int64_t axis, int64_t block_size, int64_t opset) {
  QuantIndex qi;
  if (block_size < 0) return invalid_argument("block_size ", block_size, " must not be negative");
  if (block_size == 0) {
    ONYX_ASSIGN_OR_RETURN(QuantAxis q, resolve_quant_axis(x, scale, zero_point, axis, opset));
    if (q.count > 1) {
      qi.kind = QuantIndex::Kind::kAxis;
      qi.dim = q.count;
      qi.inner = q.inner;
    }
    return qi;
  }
  if (!scale.defined()) return invalid_argument("the scale input is missing");
  if (zero_point && zero_point->defined() && zero_point->shape() != scale.shape())
    return invalid_argument("zero point ", zero_point->describe(), " must have the shape of scale ", scale.describe());
  const int64_t rank = int64_t(x.size());
  if (scale.rank() != rank)
    return invalid_argument("blocked quantization: scale ", scale.describe(), " must have the rank of x ", shape_to_string(x));
  if (axis < -rank || axis >= rank) return invalid_argument("axis ", axis, " is out of range for rank ", rank);
  if (axis < 0) axis += rank;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t want = d == axis ? (x[size_t(d)] + block_size - 1) / block_size : x[size_t(d)];
    if (scale.dim(d) != want)
      return invalid_argument("blocked quantization (block_size ", block_size, ", axis ", axis, "): scale ",
                              scale.describe(), " does not fit x ", shape_to_string(x));
  }
  qi.kind = QuantIndex::Kind::kBlocked;
  qi.dim = x[size_t(axis)];
  qi.scale_dim = scale.dim(axis);
  qi.block = block_size;
  for (int64_t d = axis + 1; d < rank; ++d) qi.inner *= x[size_t(d)];
  return qi;
}

}  // namespace onyx
