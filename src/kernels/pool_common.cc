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

namespace {

// Taps of the window at output index j (one dim) that fall inside the input.
int64_t valid_taps(const WindowGeometry& g, size_t d, int64_t j) {
  const int64_t start = j * g.strides[d] - g.pad_begin[d], dil = g.dilations[d];
  // t in [0, kernel) with 0 <= start + t * dil < in.
  const int64_t t_lo = start >= 0 ? 0 : (-start + dil - 1) / dil;
  const int64_t t_hi = start > g.in[d] - 1 ? -1 : std::min(g.kernel[d] - 1, (g.in[d] - 1 - start) / dil);
  return std::max<int64_t>(0, t_hi - t_lo + 1);
}

}  // namespace

bool pool_work_bounded(const WindowGeometry& g, int64_t planes) {
  constexpr double kMaxTaps = double(int64_t(1) << 33);  // about a second of oneDNN pooling
  constexpr int64_t kMaxPositions = int64_t(1) << 24;    // output positions worth counting taps for
  double all = 1;  // doubles: products of hostile dims must not overflow
  int64_t positions = 0;
  for (size_t d = 0; d < g.rank(); ++d) {
    all *= double(g.out[d]) * double(g.kernel[d]);
    positions += g.out[d];
    if (positions > kMaxPositions) return false;
  }
  if (double(planes) * all > kMaxTaps) return false;
  double valid = 1;
  for (size_t d = 0; d < g.rank(); ++d) {
    double sum = 0;
    for (int64_t j = 0; j < g.out[d]; ++j) sum += double(valid_taps(g, d, j));
    valid *= sum;
  }
  return all <= 4 * valid + double(1 << 20);
}

}  // namespace onyx
