// NhwcMaxPool (com.microsoft): MaxPool over a channels-last X (N, H, W, C) -> Y (N, H', W', C),
// float32, uint8 or int8, through oneDNN's pooling (a reference loop over the taps inside the input when
// pool_work_bounded says oneDNN's work would not be). MaxPool's attributes; storage_order
// must be 0; no Indices.
#include <algorithm>
#include <limits>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/onednn_pool.h"
#include "kernels/pool_common.h"

namespace onyx {
namespace {

class NhwcMaxPoolKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_pool_attrs(info, &attrs_));
    if (info.attr_int("storage_order", 0) != 0) return invalid_model("NhwcMaxPool takes storage_order 0 only");
    if (info.num_outputs() > 1) return invalid_model("NhwcMaxPool has no Indices output");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!onednn::MaxPool::supports(x.dtype()))
      return not_implemented("NhwcMaxPool (com.microsoft, opset 1) runs float32, uint8 and int8, got ", x.describe());
    if (x.rank() != 4) return invalid_argument("NhwcMaxPool takes a rank-4 X (N, H, W, C), got ", x.describe());
    const Shape x_nchw{x.dim(0), x.dim(3), x.dim(1), x.dim(2)};
    ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_pool(attrs_, x_nchw));
    if (!onednn::MaxPool::supports(g))
      return not_implemented("NhwcMaxPool with dilations or windows lying wholly in the padding");
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), Shape{x.dim(0), g.out[0], g.out[1], x.dim(3)}));
    if (y->numel() == 0) return Status::Ok();
    if (pool_work_bounded(g, x.dim(0) * x.dim(3))) return pool_.run(x_nchw, g, x.dtype(), x.raw_data(), y->raw_data());
    return dispatch<float, uint8_t, int8_t>(x.dtype(), [&]<typename T>() { return reference<T>(ctx, g, x, *y); });
  }

 private:
  // Windows far larger than their input, or pools too long for one oneDNN call: the max over
  // the taps inside the input, all channels of a position at once, polling the run's stop
  // conditions.
  template <typename T>
  static Status reference(const KernelContext& ctx, const WindowGeometry& g, const Tensor& x, Tensor& y) {
    const int64_t batch = x.dim(0), channels = x.dim(3), in_size = g.in_size(), out_size = g.out_size();
    const PoolWindows windows(g);
    PoolStopPoll poll(ctx);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t o = 0; o < out_size; ++o) {
        ONYX_RETURN_IF_ERROR(poll.add(channels * (1 + windows.valid_count(o))));
        T* best = out + (n * out_size + o) * channels;
        std::fill(best, best + channels, std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                                             : std::numeric_limits<T>::lowest());
        windows.for_each_tap(o, [&](int64_t i) {
          const T* row = in + (n * in_size + i) * channels;
          for (int64_t c = 0; c < channels; ++c) best[c] = std::max(best[c], row[c]);
        });
      }
    }
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
  onednn::MaxPool pool_{true};
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "NhwcMaxPool", 1, kLatestOpset, NhwcMaxPoolKernel);

}  // namespace onyx
