// ReduceSum: the sum over the reduced axes (0 for an empty reduction). Floats accumulate in
// double; integers wrap modulo 2^bits.
#include "kernels/reduce.h"

namespace onyx {
namespace {

class ReduceSumKernel final : public ReduceKernel {
 protected:
  int axes_input_since() const override { return 13; }
  Status reduce(const ReducePlan& plan, const Tensor& x, Tensor& y) const override {
    return dispatch<ONYX_NUMERIC_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      if constexpr (std::is_integral_v<T>) {
        fold_reduce<T>(plan, x, y, uint64_t(0), [](uint64_t& a, T v) { a += uint64_t(v); },
                       [](uint64_t a) { return static_cast<T>(a); });
      } else {
        if constexpr (std::is_same_v<T, float>) {
          if (sum_contiguous_kept_float(plan, x.data<float>(), y.data<float>(), 1.0)) return Status::Ok();
        }
        fold_reduce<T>(plan, x, y, 0.0, [](double& a, T v) { a += double(compute_t<T>(v)); },
                       [](double a) { return saturate_from_double<T>(a); });
      }
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ReduceSum", 1, kLatestOpset, ReduceSumKernel);

}  // namespace onyx
