// Window tables shared by AveragePool, MaxPool and LpPool: for every output position of a
// resolved WindowGeometry, which input positions of its (N, C) plane the window covers.
#pragma once
#include <cstdint>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "kernels/spatial.h"

namespace onyx {

class PoolWindows {
 public:
  explicit PoolWindows(const WindowGeometry& g);

  // Calls fn(offset) for every tap of output position `o` (row-major over g.out) that lies
  // inside the input, in row-major window order; `offset` is row-major within one plane.
  template <typename F>
  void for_each_tap(int64_t o, F&& fn) const;

  // Taps of output position o inside the padded input (the count_include_pad divisor).
  int64_t padded_count(int64_t o) const;
  // Taps of output position o inside the input.
  int64_t valid_count(int64_t o) const;

 private:
  // Decomposes o into per-dim output indices.
  void unravel(int64_t o, int64_t* idx) const;

  const WindowGeometry& g_;
  // Per dim and output index: valid kernel indices [lo, hi) and the padded-input tap count.
  std::vector<std::vector<int64_t>> lo_, hi_, padded_;
  std::vector<int64_t> in_strides_;
};

// Checks the input of a pool (rank >= 3: N, C, D1...) and resolves its geometry from the
// kernel_shape attribute (required).
Result<WindowGeometry> resolve_pool(const WindowAttrs& attrs, const Shape& x);

template <typename F>
void PoolWindows::for_each_tap(int64_t o, F&& fn) const {
  const size_t r = g_.rank();
  int64_t oidx[16], k[16];
  unravel(o, oidx);
  for (size_t d = 0; d < r; ++d) {
    if (lo_[d][size_t(oidx[d])] >= hi_[d][size_t(oidx[d])]) return;
    k[d] = lo_[d][size_t(oidx[d])];
  }
  const size_t last = r - 1;
  const int64_t lo_last = lo_[last][size_t(oidx[last])], hi_last = hi_[last][size_t(oidx[last])];
  const int64_t step = g_.dilations[last];
  const int64_t first = oidx[last] * g_.strides[last] - g_.pad_begin[last] + lo_last * step;
  while (true) {
    int64_t base = 0;
    for (size_t d = 0; d < last; ++d)
      base += (oidx[d] * g_.strides[d] - g_.pad_begin[d] + k[d] * g_.dilations[d]) * in_strides_[d];
    for (int64_t kk = lo_last, i = first; kk < hi_last; ++kk, i += step) fn(base + i);
    size_t d = last;
    while (d-- > 0) {
      if (++k[d] < hi_[d][size_t(oidx[d])]) break;
      k[d] = lo_[d][size_t(oidx[d])];
    }
    if (d == size_t(-1)) return;
  }
}

}  // namespace onyx
