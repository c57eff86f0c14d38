// Adam (ai.onnx.preview.training): one Adam step for tensors X_1..X_n with gradients G_i,
// averaged gradients V_i and averaged squared gradients H_i; outputs X_new, V_new, H_new.
//   g = norm_coefficient * X + G; V_new = alpha V + (1 - alpha) g; H_new = beta H + (1 - beta) g^2
//   r = T > 0 ? R sqrt(1 - beta^T) / (1 - alpha^T) : R
//   X_new = (1 - norm_coefficient_post) (X - r V_new / (sqrt(H_new) + epsilon))
#include <cmath>

#include "kernels/optimizer_common.h"

namespace onyx {
namespace {

class AdamKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 0.9f);
    beta_ = info.attr_float("beta", 0.999f);
    epsilon_ = info.attr_float("epsilon", 1e-6f);
    norm_coefficient_ = info.attr_float("norm_coefficient", 0.f);
    norm_coefficient_post_ = info.attr_float("norm_coefficient_post", 0.f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return optimizer::run(ctx, 4, 3, [&](double r, int64_t t) {
      const double rate =
          t > 0 ? r * std::sqrt(1.0 - std::pow(beta_, double(t))) / (1.0 - std::pow(alpha_, double(t))) : r;
      return [=, this](const double* in, double* out) {
        const double x = in[0], g = norm_coefficient_ * x + in[1];
        const double v_new = alpha_ * in[2] + (1.0 - alpha_) * g;
        const double h_new = beta_ * in[3] + (1.0 - beta_) * g * g;
        out[0] = (1.0 - norm_coefficient_post_) * (x - rate * v_new / (std::sqrt(h_new) + epsilon_));
        out[1] = v_new;
        out[2] = h_new;
      };
    });
  }

 private:
  double alpha_ = 0.9, beta_ = 0.999, epsilon_ = 1e-6, norm_coefficient_ = 0, norm_coefficient_post_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.preview.training", "Adam", 1, kLatestOpset, AdamKernel);

}  // namespace onyx
