// Log: y = ln(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class LogKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::log(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Log", 1, kLatestOpset, LogKernel);

}  // namespace onyx
