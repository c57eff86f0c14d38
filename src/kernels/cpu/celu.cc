// Celu: y = max(0, x) + min(0, alpha * (e^(x / alpha) - 1)), elementwise; alpha != 0.
#include <algorithm>
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class CeluKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.0f);
    if (alpha_ == 0.0f) return invalid_model("Celu: alpha must not be 0");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [this](auto x) {
      using C = decltype(x);
      const C a = C(alpha_);
      return std::max(C(0), x) + std::min(C(0), a * std::expm1(x / a));
    });
  }

 private:
  float alpha_ = 1.0f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Celu", 12, kLatestOpset, CeluKernel);

}  // namespace onyx
