// MaxPoolGrad (ai.onyx.training, opset 1): the gradient of MaxPool (storage_order 0) with
// respect to X, for the gradient builder's rule, in one kernel instead of a MaxPool with
// Indices, a ScatterND and the reshapes around them.
//   inputs      dY (N, C, O1..On), X (N, C, D1..Dn): the forward output's gradient and its input
//   attributes  kernel_shape (required), strides, pads, dilations, auto_pad, ceil_mode, as the
//               forward MaxPool had them
//   output      dX (X's shape): each dY[n, c, o] added at the maximum of its window over
//               X[n, c] (the first maximum in window order, as MaxPool's Indices; padding never
//               wins; a window wholly in the padding adds nothing).
// Float types; planes in parallel when the pooling's work is bounded by its tensors
// (pool_work_bounded), else one plane at a time, polling the run's stop conditions.
#include <algorithm>
#include <cstdint>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/pool_common.h"

namespace onyx {
namespace {

class MaxPoolGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return parse_pool_attrs(info, &attrs_); }

  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& x = ctx.input(1);
    ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_pool(attrs_, x.shape()));
    Shape y_shape{x.dim(0), x.dim(1)};
    y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
    if (dy.shape() != y_shape || dy.dtype() != x.dtype())
      return invalid_argument("MaxPoolGrad: dY ", dy.describe(), " is not the gradient of MaxPool's output for X ",
                              x.describe());
    ONYX_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output(0, x.dtype(), x.shape()));  // zero-filled: added into
    const int64_t planes = x.dim(0) * x.dim(1), in_size = g.in_size(), out_size = g.out_size();
    if (planes == 0 || in_size == 0 || out_size == 0) return Status::Ok();
    const PoolWindows windows(g);
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using CT = compute_t<T>;
      const T* xp = x.data<T>();
      const T* dyp = dy.data<T>();
      T* dxp = dx->data<T>();
      // Plane p; with `poll`, the run's stop conditions are polled as the windows are visited.
      auto plane = [&](int64_t p, PoolStopPoll* poll) -> Status {
        const T* xs = xp + p * in_size;
        const T* g_out = dyp + p * out_size;
        T* d = dxp + p * in_size;
        for (int64_t o = 0; o < out_size; ++o) {
          if (poll) ONYX_RETURN_IF_ERROR(poll->add(1 + windows.valid_count(o)));
          CT best = CT(0);
          int64_t best_at = -1;
          windows.for_each_tap(o, [&](int64_t i) {
            const CT v = static_cast<CT>(xs[i]);
            if (best_at < 0 || v > best) {
              best = v;
              best_at = i;
            }
          });
          if (best_at >= 0) d[best_at] = static_cast<T>(static_cast<CT>(d[best_at]) + static_cast<CT>(g_out[o]));
        }
        return Status::Ok();
      };
      // 2-D planes with the window ranges computed per row and column (the table walk of
      // PoolWindows costs about 5x more per tap); the same taps in the same order.
      auto plane_2d = [&](int64_t p) {
        const T* xs = xp + p * in_size;
        const T* g_out = dyp + p * out_size;
        T* d = dxp + p * in_size;
        const int64_t ih = g.in[0], iw = g.in[1], oh = g.out[0], ow = g.out[1];
        const int64_t kh = g.kernel[0], kw = g.kernel[1], sh = g.strides[0], sw = g.strides[1];
        const int64_t dh = g.dilations[0], dw = g.dilations[1], ph = g.pad_begin[0], pw = g.pad_begin[1];
        // The kernel taps [lo, hi) of window start `s` that lie inside [0, n).
        auto taps = [](int64_t s, int64_t k, int64_t dil, int64_t n, int64_t* lo, int64_t* hi) {
          *lo = s >= 0 ? 0 : (-s + dil - 1) / dil;
          *hi = s >= n ? 0 : std::min(k, (n - 1 - s) / dil + 1);
        };
        for (int64_t y = 0; y < oh; ++y) {
          int64_t y_lo, y_hi;
          taps(y * sh - ph, kh, dh, ih, &y_lo, &y_hi);
          for (int64_t x0 = 0; x0 < ow; ++x0) {
            int64_t x_lo, x_hi;
            taps(x0 * sw - pw, kw, dw, iw, &x_lo, &x_hi);
            CT best = CT(0);
            int64_t best_at = -1;
            for (int64_t a = y_lo; a < y_hi; ++a) {
              const int64_t row = (y * sh - ph + a * dh) * iw;
              for (int64_t b = x_lo; b < x_hi; ++b) {
                const int64_t i = row + x0 * sw - pw + b * dw;
                const CT v = static_cast<CT>(xs[i]);
                if (best_at < 0 || v > best) {
                  best = v;
                  best_at = i;
                }
              }
            }
            const int64_t o = y * ow + x0;
            if (best_at >= 0) d[best_at] = static_cast<T>(static_cast<CT>(d[best_at]) + static_cast<CT>(g_out[o]));
          }
        }
      };
      if (pool_work_bounded(g, planes)) {
        parallel_for(planes, 1, [&](int64_t begin, int64_t end) {
          for (int64_t p = begin; p < end; ++p) {
            if (g.rank() == 2) plane_2d(p);
            else (void)plane(p, nullptr);  // cannot fail without a poll
          }
        });
        return Status::Ok();
      }
      PoolStopPoll poll(ctx);
      for (int64_t p = 0; p < planes; ++p) ONYX_RETURN_IF_ERROR(plane(p, &poll));
      return Status::Ok();
    });
  }

 private:
  WindowAttrs attrs_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "MaxPoolGrad", 1, kLatestOpset, MaxPoolGradKernel);

}  // namespace onyx
