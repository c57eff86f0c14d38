// Selu: y = gamma * x for x > 0, gamma * alpha * (e^x - 1) otherwise, elementwise.
// The default alpha and gamma are rounder numbers before opset 6.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class SeluKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const bool legacy = info.opset() < 6;
    alpha_ = info.attr_float("alpha", legacy ? 1.6732f : 1.67326319217681884765625f);
    gamma_ = info.attr_float("gamma", legacy ? 1.0507f : 1.05070102214813232421875f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [this](auto x) {
      using C = decltype(x);
      return C(gamma_) * (x > C(0) ? x : C(alpha_) * std::expm1(x));
    });
  }

 private:
  float alpha_ = 0;
  float gamma_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Selu", 1, kLatestOpset, SeluKernel);

}  // namespace onyx
