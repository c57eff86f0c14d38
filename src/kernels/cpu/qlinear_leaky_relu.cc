// com.microsoft QLinearLeakyRelu (contrib op, since 1): Y = q(x >= 0 ? x : alpha * x) with
// x = dq(X), alpha an attribute (default 0.01); see qlinear_unary.h.
#include "kernels/qlinear_unary.h"

namespace onyx {
namespace {

class QLinearLeakyReluKernel final : public QLinearUnaryKernel<QLinearLeakyReluKernel> {
 public:
  static constexpr const char* kName = "QLinearLeakyRelu";
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 0.01f);
    return Status::Ok();
  }
  float apply(float x) const { return x >= 0 ? x : alpha_ * x; }

 private:
  float alpha_ = 0.01f;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "QLinearLeakyRelu", 1, kLatestOpset, QLinearLeakyReluKernel);

}  // namespace onyx
