// ReduceLogSum: log of the sum over the reduced axes (-inf for an empty reduction), computed
// in double. Integer results truncate and saturate.
#include "kernels/reduce.h"

namespace onyx {
namespace {

class ReduceLogSumKernel final : public ReduceKernel {
 protected:
  Status reduce(const ReducePlan& plan, const Tensor& x, Tensor& y) const override {
    return dispatch<ONYX_NUMERIC_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      fold_reduce<T>(plan, x, y, 0.0, [](double& a, T v) { a += double(compute_t<T>(v)); },
                     [](double a) { return saturate_from_double<T>(std::log(a)); });
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ReduceLogSum", 1, kLatestOpset, ReduceLogSumKernel);

}  // namespace onyx
