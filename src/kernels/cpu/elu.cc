// Elu: y = x for x >= 0, alpha * (e^x - 1) otherwise, elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class EluKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.0f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [this](auto x) {
      using C = decltype(x);
      return x >= C(0) ? x : C(alpha_) * std::expm1(x);
    });
  }

 private:
  float alpha_ = 1.0f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Elu", 1, kLatestOpset, EluKernel);

}  // namespace onyx
