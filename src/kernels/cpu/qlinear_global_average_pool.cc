// com.microsoft QLinearGlobalAveragePool (contrib op, since 1): X uint8 or int8, (N, C, D...)
// or (N, D..., C) with channels_last = 1; x_scale, x_zero_point, y_scale, y_zero_point all
// required. Y keeps N and C with every spatial dim 1:
//   Y[n, c] = q((x_scale / y_scale) * (float32(sum over D of (X - x_zp)) / float32(prod D)))
// with q(v) = saturate(round_half_even(v) + y_zp), in float32 in that order.
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/qlinear_common.h"

namespace onyx {
namespace {

class QLinearGlobalAveragePoolKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    channels_last_ = info.attr_int("channels_last", 0) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!is_qlinear_type(x.dtype()))
      return invalid_argument("QLinearGlobalAveragePool: X must be uint8 or int8, got ", x.describe());
    if (x.rank() < 3) return invalid_argument("QLinearGlobalAveragePool: X must have rank 3 or more, got ", x.describe());
    ONYX_ASSIGN_OR_RETURN(QParams px, read_qparams(ctx, 1, 2, x.dtype(), "x", /*zp_optional=*/false));
    ONYX_ASSIGN_OR_RETURN(QParams py, read_qparams(ctx, 3, 4, x.dtype(), "y", /*zp_optional=*/false));
    const int64_t rank = x.rank(), c_axis = channels_last_ ? rank - 1 : 1;
    Shape y_shape(size_t(rank), 1);
    y_shape[0] = x.dim(0);
    y_shape[size_t(c_axis)] = x.dim(c_axis);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), y_shape));
    const int64_t batch = x.dim(0), channels = x.dim(c_axis);
    const int64_t size = batch * channels > 0 ? x.numel() / (batch * channels) : 0;
    if (y->numel() == 0) return Status::Ok();
    if (size == 0) return invalid_argument("QLinearGlobalAveragePool: X ", x.describe(), " has no spatial elements");
    const float ratio = px.scale / py.scale;
    return dispatch<uint8_t, int8_t>(x.dtype(), [&]<typename Q>() -> Status {
      const Q* in = x.data<Q>();
      Q* out = y->data<Q>();
      auto finish = [&](int64_t sum) {
        return quantize_to<Q>(ratio * (float(sum) / float(size)), py.zero_point);
      };
      for (int64_t n = 0; n < batch; ++n) {
        const Q* plane = in + n * channels * size;
        if (channels_last_) {
          std::vector<int64_t> sums(size_t(channels), 0);
          for (int64_t s = 0; s < size; ++s)
            for (int64_t c = 0; c < channels; ++c) sums[size_t(c)] += int64_t(plane[s * channels + c]);
          for (int64_t c = 0; c < channels; ++c) out[n * channels + c] = finish(sums[size_t(c)] - px.zero_point * size);
        } else {
          for (int64_t c = 0; c < channels; ++c) {
            int64_t sum = 0;
            for (int64_t s = 0; s < size; ++s) sum += int64_t(plane[c * size + s]);
            out[n * channels + c] = finish(sum - px.zero_point * size);
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  bool channels_last_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "QLinearGlobalAveragePool", 1, kLatestOpset, QLinearGlobalAveragePoolKernel);

}  // namespace onyx
