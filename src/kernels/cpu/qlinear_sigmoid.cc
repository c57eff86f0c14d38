// com.microsoft QLinearSigmoid (contrib op, since 1): Y = q(sigmoid(dq(X))), see qlinear_unary.h.
#include <cmath>

#include "kernels/qlinear_unary.h"

namespace onyx {
namespace {

class QLinearSigmoidKernel final : public QLinearUnaryKernel<QLinearSigmoidKernel> {
 public:
  static constexpr const char* kName = "QLinearSigmoid";
  float apply(float x) const { return 1.0f / (1.0f + std::exp(-x)); }
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "QLinearSigmoid", 1, kLatestOpset, QLinearSigmoidKernel);

}  // namespace onyx
