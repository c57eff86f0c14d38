// HardSigmoid: y = max(0, min(1, alpha * x + beta)), elementwise.
#include <algorithm>

#include "kernels/unary.h"

namespace onyx {
namespace {

class HardSigmoidKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 0.2f);
    beta_ = info.attr_float("beta", 0.5f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [this](auto x) {
      using C = decltype(x);
      return std::clamp(C(alpha_) * x + C(beta_), C(0), C(1));
    });
  }

 private:
  float alpha_ = 0.2f;
  float beta_ = 0.5f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "HardSigmoid", 1, kLatestOpset, HardSigmoidKernel);

}  // namespace onyx
