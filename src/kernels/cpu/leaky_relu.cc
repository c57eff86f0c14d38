// LeakyRelu: y = x for x >= 0, alpha * x otherwise, elementwise.
#include "kernels/unary.h"

namespace onyx {
namespace {

class LeakyReluKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 0.01f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [this](auto x) {
      using C = decltype(x);
      return x >= C(0) ? x : C(alpha_) * x;
    });
  }

 private:
  float alpha_ = 0.01f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "LeakyRelu", 1, kLatestOpset, LeakyReluKernel);

}  // namespace onyx
