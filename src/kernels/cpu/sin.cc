// Sin: y = sin(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class SinKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::sin(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Sin", 7, kLatestOpset, SinKernel);

}  // namespace onyx
