// ReduceLogSumExp: log(sum(exp(x))) over the reduced axes, computed stably in double as
// max + log(sum(exp(x - max))). An empty reduction gives -inf. Integer results truncate
// and saturate.
#include "kernels/reduce.h"

namespace onyx {
namespace {

class ReduceLogSumExpKernel final : public ReduceKernel {
 protected:
  Status reduce(const ReducePlan& plan, const Tensor& x, Tensor& y) const override {
    return dispatch<ONYX_NUMERIC_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      const T* in = x.data<T>();
      T* out = y.data<T>();
      const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(plan.reduce_count, 1));
      parallel_for(plan.out_count, grain, [&](int64_t begin, int64_t end) {
        ReduceCursor cur(plan);
        for (int64_t o = begin; o < end; ++o) {
          const int64_t base = cur.base(o);
          double m = -std::numeric_limits<double>::infinity();
          cur.visit(base, [&](int64_t off) { m = std::max(m, double(compute_t<T>(in[off]))); });
          if (std::isinf(m)) {  // empty, all -inf, or some +inf
            out[o] = saturate_from_double<T>(m);
            continue;
          }
          double s = 0;
          cur.visit(base, [&](int64_t off) { s += std::exp(double(compute_t<T>(in[off])) - m); });
          out[o] = saturate_from_double<T>(m + std::log(s));
        }
      });
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ReduceLogSumExp", 1, kLatestOpset, ReduceLogSumExpKernel);

}  // namespace onyx
