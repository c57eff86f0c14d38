#include "kernels/pool_common.h"

#include <algorithm>

namespace onyx {

PoolWindows::PoolWindows(const WindowGeometry& g) : g_(g) {
  const size_t r = g.rank();
  lo_.resize(r);
  hi_.resize(r);
  padded_.resize(r);
  in_strides_ = shape_strides(g.in);
  for (size_t d = 0; d < r; ++d) {
    const int64_t s = g.strides[d], dil = g.dilations[d], k = g.kernel[d], in = g.in[d];
    for (int64_t o = 0; o < g.out[d]; ++o) {
      const int64_t start = o * s - g.pad_begin[d];
      // Tap j reads start + j * dil: valid inside [0, in), counted by count_include_pad inside
      // [-pad_begin, in + pad_end); start >= -pad_begin always.
      const int64_t lo = std::clamp<int64_t>(spatial_detail::ceil_div(-start, dil), 0, k);
      const int64_t hi = std::clamp<int64_t>(spatial_detail::ceil_div(in - start, dil), lo, k);
      const int64_t padded = std::clamp<int64_t>(spatial_detail::ceil_div(in + g.pad_end[d] - start, dil), 0, k);
      lo_[d].push_back(lo);
      hi_[d].push_back(hi);
      padded_[d].push_back(padded);
    }
  }
}

void PoolWindows::unravel(int64_t o, int64_t* idx) const {
  for (size_t d = g_.rank(); d-- > 0;) {
    idx[d] = o % g_.out[d];
    o /= g_.out[d];
  }
}

int64_t PoolWindows::padded_count(int64_t o) const {
  int64_t idx[16];
  unravel(o, idx);
  int64_t n = 1;
  for (size_t d = 0; d < g_.rank(); ++d) n *= padded_[d][size_t(idx[d])];
  return n;
}

int64_t PoolWindows::valid_count(int64_t o) const {
  int64_t idx[16];
  unravel(o, idx);
  int64_t n = 1;
  for (size_t d = 0; d < g_.rank(); ++d) n *= hi_[d][size_t(idx[d])] - lo_[d][size_t(idx[d])];
  return n;
}

Result<WindowGeometry> resolve_pool(const WindowAttrs& attrs, const Shape& x) {
  if (x.size() < 3)
    return invalid_argument("pool input must have rank 3 or more (N, C, D1...), got ", shape_to_string(x));
  if (x.size() - 2 > 8) return invalid_argument("pooling over more than 8 spatial dims is not supported");
  if (attrs.kernel_shape.size() != x.size() - 2)
    return invalid_argument("kernel_shape has ", attrs.kernel_shape.size(), " dims but the input ", shape_to_string(x),
                            " has ", x.size() - 2, " spatial dims");
  return resolve_window(attrs, Shape(x.begin() + 2, x.end()), attrs.kernel_shape);
}

bool pool_work_bounded(const WindowGeometry& g) {
  double window = 1, out = 1, in = 1;  // doubles: products of hostile dims must not overflow
  for (size_t d = 0; d < g.rank(); ++d) {
    window *= double(g.kernel[d]);
    out *= double(g.out[d]);
    in *= double(g.in[d]);
  }
  return out * window <= 64 * in + double(1 << 20);
}

}  // namespace onyx
