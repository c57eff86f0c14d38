// GroupNormalization (opsets 18 and 21): X (N, C, D1..Dn) with C split into 'num_groups'
// groups of C / num_groups consecutive channels; each (n, group) block is normalised by its own
// mean and population variance, y = scale * (x - mean) / sqrt(var + epsilon) + bias.
//   opset 18: scale and bias have shape [num_groups] (one per group);
//   opset 21: scale and bias have shape [C] (one per channel).
// 'stash_type' (opset 21) asks for the statistics in float32 at least: onyx computes them in
// double for every input type, which is as precise or more.
#include <cmath>
#include <string>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class GroupNormalizationKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (!info.has_attr("num_groups")) return invalid_model("GroupNormalization: attribute 'num_groups' is required");
    num_groups_ = info.attr_int("num_groups", 0);
    if (num_groups_ <= 0) return invalid_model("GroupNormalization: 'num_groups' must be positive, got ", num_groups_);
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    per_channel_ = info.opset() >= 21;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    for (int i = 0; i < 3; ++i)
      if (!ctx.has_input(i)) return invalid_argument("GroupNormalization: input ", i, " is missing");
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor& bias = ctx.input(2);
    if (x.rank() < 2) return invalid_argument("X must have rank 2 or more (N, C, ...), got ", x.describe());
    const int64_t channels = x.dim(1);
    if (channels % num_groups_ != 0)
      return invalid_argument("the channel count ", channels, " is not divisible by num_groups ", num_groups_);
    const int64_t params = per_channel_ ? channels : num_groups_;
    for (const Tensor* p : {&scale, &bias})
      if (p->dtype() != x.dtype() || p->rank() != 1 || p->dim(0) != params)
        return invalid_argument("scale and bias must have shape [", params, "] (", per_channel_ ? "channels" : "num_groups",
                                ") and X's type, got ", p->describe());
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    const int64_t batch = x.dim(0);
    if (batch == 0 || channels == 0) return Status::Ok();
    const int64_t spatial = x.numel() / (batch * channels);
    const int64_t group_channels = channels / num_groups_;
    const int64_t group_size = group_channels * spatial;
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using C = compute_t<T>;
      const T* in = x.data<T>();
      const T* sc = scale.data<T>();
      const T* bi = bias.data<T>();
      T* out = y->data<T>();
      for (int64_t b = 0; b < batch * num_groups_; ++b) {
        const int64_t g = b % num_groups_;
        const T* src = in + b * group_size;
        T* dst = out + b * group_size;
        double sum = 0, sq = 0;
        for (int64_t i = 0; i < group_size; ++i) sum += double(C(src[i]));
        const double mean = group_size > 0 ? sum / double(group_size) : 0;
        for (int64_t i = 0; i < group_size; ++i) {
          const double d = double(C(src[i])) - mean;
          sq += d * d;
        }
        const double inv_std = 1.0 / std::sqrt((group_size > 0 ? sq / double(group_size) : 0) + double(epsilon_));
        for (int64_t c = 0; c < group_channels; ++c) {
          const int64_t param = per_channel_ ? g * group_channels + c : g;
          const double a = double(C(sc[param])), shift = double(C(bi[param]));
          for (int64_t i = c * spatial; i < (c + 1) * spatial; ++i)
            dst[i] = static_cast<T>(C((double(C(src[i])) - mean) * inv_std * a + shift));
        }
      }
      return Status::Ok();
    });
  }

 private:
  int64_t num_groups_ = 0;
  float epsilon_ = 1e-5f;
  bool per_channel_ = true;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "GroupNormalization", 18, kLatestOpset, GroupNormalizationKernel);

}  // namespace onyx
