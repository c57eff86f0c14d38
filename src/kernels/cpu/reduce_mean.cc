// ReduceMean: the arithmetic mean over the reduced axes, accumulated in double. Integer
// results truncate toward zero. An empty reduction gives NaN for floats and is an error
// for integers.
#include "kernels/reduce.h"

namespace onyx {
namespace {

class ReduceMeanKernel final : public ReduceKernel {
 protected:
  Status reduce(const ReducePlan& plan, const Tensor& x, Tensor& y) const override {
    return dispatch<ONYX_NUMERIC_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      if (std::is_integral_v<T> && plan.reduce_count == 0 && plan.out_count > 0)
        return invalid_argument("the mean of an empty set of ", data_type_name(x.dtype()), " values is undefined");
      const double count = double(plan.reduce_count);
      if constexpr (std::is_same_v<T, float>) {
        if (sum_contiguous_kept_float(plan, x.data<float>(), y.data<float>(), count)) return Status::Ok();
      }
      fold_reduce<T>(plan, x, y, 0.0, [](double& a, T v) { a += double(compute_t<T>(v)); },
                     [count](double a) { return saturate_from_double<T>(a / count); });
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ReduceMean", 1, kLatestOpset, ReduceMeanKernel);

}  // namespace onyx
