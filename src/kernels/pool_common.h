// Window tables shared by AveragePool, MaxPool and LpPool: for every output position of a
// resolved WindowGeometry, which input positions of its (N, C) plane the window covers; and
// the attribute parsing and output loop those pools share.
#pragma once
#include <cstdint>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
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

// Parses the window attributes of a pool, which needs kernel_shape.
inline Status parse_pool_attrs(const KernelInfo& info, WindowAttrs* attrs) {
  ONYX_RETURN_IF_ERROR(parse_window_attrs(info, attrs));
  if (attrs->kernel_shape.empty()) return invalid_model("kernel_shape is required");
  return Status::Ok();
}

// True when oneDNN's pooling, which runs every tap of every window (padding included) and
// cannot be stopped midway, is worth calling on `planes` planes of this geometry: at most 2^33
// taps in all (about a second), and no more than 4 times the taps inside the input (plus a
// fixed allowance). Ordinary CNN pools pass. A window far larger than its input (10^9 rows
// with SAME padding) or a pool of hours fails, and goes to the reference loops, which visit
// only the taps inside the input and poll the run's stop conditions (PoolStopPoll).
bool pool_work_bounded(const WindowGeometry& g, int64_t planes);

// Counts the taps a reference pool has visited and calls ctx.check_stop() every ~4M of them,
// so that a long pool honours the run's terminate flag and time limit.
class PoolStopPoll {
 public:
  explicit PoolStopPoll(const KernelContext& ctx) : ctx_(ctx) {}
  Status add(int64_t taps) {
    done_ += taps;
    if (done_ < kEvery) return Status::Ok();
    done_ = 0;
    return ctx_.check_stop();
  }

 private:
  static constexpr int64_t kEvery = int64_t(1) << 22;
  const KernelContext& ctx_;
  int64_t done_ = 0;
};

// AveragePool and LpPool: resolves the geometry of input 0 (floating types), allocates
// Y (N, C, out...) and sets each Y[p, o] = reduce(windows, plane p of X, o), where reduce is
// called as reduce(const PoolWindows&, const T* plane, int64_t o) and returns a compute_t<T>.
template <typename Reduce>
Status compute_window_pool(KernelContext& ctx, const WindowAttrs& attrs, Reduce reduce) {
  const Tensor& x = ctx.input(0);
  ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_pool(attrs, x.shape()));
  Shape y_shape{x.dim(0), x.dim(1)};
  y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
  ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), y_shape));
  if (y->numel() == 0) return Status::Ok();
  const PoolWindows windows(g);
  return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
    const int64_t planes = x.dim(0) * x.dim(1), in_size = g.in_size(), out_size = g.out_size();
    const T* in = x.data<T>();
    T* out = y->data<T>();
    PoolStopPoll poll(ctx);
    for (int64_t o = 0; o < out_size; ++o) {
      ONYX_RETURN_IF_ERROR(poll.add(planes * (1 + windows.valid_count(o))));
      for (int64_t p = 0; p < planes; ++p) out[p * out_size + o] = static_cast<T>(reduce(windows, in + p * in_size, o));
    }
    return Status::Ok();
  });
}

}  // namespace onyx
