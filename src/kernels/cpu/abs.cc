// Abs: y = |x|, elementwise. The most negative signed integer maps to itself (two's complement).
#include <cmath>
#include <type_traits>

#include "kernels/unary.h"

namespace onyx {
namespace {

class AbsKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_NUMERIC_TYPES>(ctx, [](auto x) {
      using C = decltype(x);
      if constexpr (std::is_floating_point_v<C>) return std::abs(x);
      else if constexpr (std::is_unsigned_v<C>) return x;
      else return x < C(0) ? wrapping_neg(x) : x;
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Abs", 1, kLatestOpset, AbsKernel);

}  // namespace onyx
