// Momentum (ai.onnx.preview.training): one step of SGD with standard or Nesterov momentum
// for tensors X_1..X_n with gradients G_i and momenta V_i; outputs X_new_1..n, V_new_1..n.
//   g = norm_coefficient * X + G; V_new = alpha V + (T > 0 ? beta : 1) g
//   standard: X_new = X - R V_new; nesterov: X_new = X - R (g + alpha V_new)
#include "kernels/optimizer_common.h"

namespace onyx {
namespace {

class MomentumKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    for (const char* name : {"alpha", "beta", "norm_coefficient", "mode"})
      if (!info.has_attr(name)) return invalid_model("Momentum needs the '", name, "' attribute");
    alpha_ = info.attr_float("alpha", 0.f);
    beta_ = info.attr_float("beta", 0.f);
    norm_coefficient_ = info.attr_float("norm_coefficient", 0.f);
    const std::string mode = info.attr_string("mode", "");
    if (mode != "standard" && mode != "nesterov")
      return invalid_model("mode must be standard or nesterov, got '", mode, "'");
    nesterov_ = mode == "nesterov";
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return optimizer::run(ctx, 3, 2, [&](double r, int64_t t) {
      const double beta = t > 0 ? beta_ : 1.0;
      return [=, this](const double* in, double* out) {
        const double x = in[0], g = norm_coefficient_ * x + in[1];
        const double v_new = alpha_ * in[2] + beta * g;
        out[0] = nesterov_ ? x - r * (g + alpha_ * v_new) : x - r * v_new;
        out[1] = v_new;
      };
    });
  }

 private:
  double alpha_ = 0, beta_ = 0, norm_coefficient_ = 0;
  bool nesterov_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.preview.training", "Momentum", 1, kLatestOpset, MomentumKernel);

}  // namespace onyx
