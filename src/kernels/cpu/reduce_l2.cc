// ReduceL2: sqrt of the sum of squares over the reduced axes (0 for an empty reduction),
// computed in double. Integer results truncate.
#include "kernels/reduce.h"

namespace onyx {
namespace {

class ReduceL2Kernel final : public ReduceKernel {
 protected:
  Status reduce(const ReducePlan& plan, const Tensor& x, Tensor& y) const override {
    return dispatch<ONYX_NUMERIC_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      fold_reduce<T>(plan, x, y, 0.0, [](double& a, T v) { const double d = double(compute_t<T>(v)); a += d * d; },
                     [](double a) { return saturate_from_double<T>(std::sqrt(a)); });
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ReduceL2", 1, kLatestOpset, ReduceL2Kernel);

}  // namespace onyx
