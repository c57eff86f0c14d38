// ThresholdedRelu: y = x for x > alpha, 0 otherwise, elementwise.
#include "kernels/unary.h"

namespace onyx {
namespace {

class ThresholdedReluKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.0f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [this](auto x) {
      using C = decltype(x);
      return x > C(alpha_) ? x : C(0);
    });
  }

 private:
  float alpha_ = 1.0f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ThresholdedRelu", 10, kLatestOpset, ThresholdedReluKernel);

}  // namespace onyx
