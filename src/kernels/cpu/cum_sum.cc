// CumSum: running sums along the 'axis' input; exclusive=1 leaves out the current element,
// reverse=1 sums from the end. Integer sums wrap around instead of overflowing.
#include <type_traits>

#include "kernels/broadcast.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class CumSumKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    exclusive_ = info.attr_int("exclusive", 0) != 0;
    reverse_ = info.attr_int("reverse", 0) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(const int64_t axis_in, read_int_scalar(ctx.input(1), "axis"));
    ONYX_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_in, x.rank()));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), x.shape()));
    const int64_t n = x.dim(axis);
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    return dispatch<ONYX_NUMERIC_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using C = compute_t<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j) {
          C acc = C(0);
          for (int64_t s = 0; s < n; ++s) {
            const int64_t i = reverse_ ? n - 1 - s : s;
            const int64_t at = (o * n + i) * inner + j;
            const C v = C(in[at]);
            if (exclusive_) out[at] = static_cast<T>(acc);
            if constexpr (std::is_integral_v<C>) acc = C(uint64_t(acc) + uint64_t(v));
            else acc = acc + v;
            if (!exclusive_) out[at] = static_cast<T>(acc);
          }
        }
      return Status::Ok();
    });
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "CumSum", 1, kLatestOpset, CumSumKernel);

}  // namespace onyx
