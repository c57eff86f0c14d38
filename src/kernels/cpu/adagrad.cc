// Adagrad (ai.onnx.preview.training): one ADAGRAD step for tensors X_1..X_n with gradients
// G_i and accumulated squared gradients H_i; outputs X_new_1..n, H_new_1..n.
//   r = R / (1 + T * decay_factor); g = norm_coefficient * X + G; H_new = H + g * g;
//   X_new = X - r * g / (sqrt(H_new) + epsilon)
#include <cmath>

#include "kernels/optimizer_common.h"

namespace onyx {
namespace {

class AdagradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    decay_factor_ = info.attr_float("decay_factor", 0.f);
    epsilon_ = info.attr_float("epsilon", 1e-6f);
    norm_coefficient_ = info.attr_float("norm_coefficient", 0.f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return optimizer::run(ctx, 3, 2, [&](double r, int64_t t) {
      const double rate = r / (1.0 + double(t) * decay_factor_);
      return [=, this](const double* in, double* out) {
        const double x = in[0], g = norm_coefficient_ * x + in[1];
        const double h_new = in[2] + g * g;
        out[0] = x - rate * g / (std::sqrt(h_new) + epsilon_);
        out[1] = h_new;
      };
    });
  }

 private:
  double decay_factor_ = 0, epsilon_ = 1e-6, norm_coefficient_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.preview.training", "Adagrad", 1, kLatestOpset, AdagradKernel);

}  // namespace onyx
