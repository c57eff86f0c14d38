// ReduceMin: the minimum over the reduced axes; NaN propagates. An empty reduction gives
// +inf for floats, the highest value for integers and true for bool.
#include "kernels/reduce.h"

namespace onyx {
namespace {

class ReduceMinKernel final : public ReduceKernel {
 protected:
  Status reduce(const ReducePlan& plan, const Tensor& x, Tensor& y) const override {
    return dispatch<ONYX_NUMERIC_TYPES, bool>(x.dtype(), [&]<typename T>() -> Status {
      using C = compute_t<T>;
      C init = std::numeric_limits<C>::max();
      if constexpr (std::numeric_limits<C>::has_infinity) init = std::numeric_limits<C>::infinity();
      fold_reduce<T>(plan, x, y, init,
                     [](C& a, T v) {
                       const C c = static_cast<C>(v);
                       if (c < a || c != c) a = c;  // c != c: NaN wins and then sticks
                     },
                     [](C a) { return static_cast<T>(a); });
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ReduceMin", 1, kLatestOpset, ReduceMinKernel);

}  // namespace onyx
