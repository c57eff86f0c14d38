// IsInf: y = (x is +inf and detect_positive) or (x is -inf and detect_negative), elementwise;
// a bool tensor.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class IsInfKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    detect_positive_ = info.attr_int("detect_positive", 1) != 0;
    detect_negative_ = info.attr_int("detect_negative", 1) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return unary_map_to<bool, ONYX_FLOAT_TYPES>(ctx, [this](auto x) {
      return std::isinf(x) && (x > 0 ? detect_positive_ : detect_negative_);
    });
  }

 private:
  bool detect_positive_ = true;
  bool detect_negative_ = true;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "IsInf", 10, kLatestOpset, IsInfKernel);

}  // namespace onyx
