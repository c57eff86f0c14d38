// Range: start, start + delta, ... while short of limit (scalars of one numeric type);
// max(ceil((limit - start) / delta), 0) elements.
#include <cmath>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class RangeKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& start_t = ctx.input(0);
    const Tensor& limit_t = ctx.input(1);
    const Tensor& delta_t = ctx.input(2);
    for (const Tensor* t : {&start_t, &limit_t, &delta_t})
      if (t->numel() != 1 || t->dtype() != start_t.dtype())
        return invalid_argument("Range: start, limit and delta must be scalars of one type, got ", start_t.describe(),
                                ", ", limit_t.describe(), ", ", delta_t.describe());
    return dispatch<float, double, int16_t, int32_t, int64_t, Float16, BFloat16, int8_t, uint8_t, uint16_t, uint32_t,
                    uint64_t>(start_t.dtype(), [&]<typename T>() -> Status {
      using C = compute_t<T>;
      const C start = C(*start_t.data<T>()), limit = C(*limit_t.data<T>()), delta = C(*delta_t.data<T>());
      if (delta == C(0)) return invalid_argument("Range: delta is zero");
      int64_t n = 0;
      if constexpr (std::is_integral_v<C>) {
        const __int128 span = __int128(limit) - __int128(start);
        const __int128 d = __int128(delta);
        __int128 count = span / d + (span % d != 0 ? 1 : 0);  // ceil for same-sign span and d
        if ((span > 0) != (d > 0) || span == 0) count = 0;
        if (count > (__int128(1) << 40)) return invalid_argument("Range: too many elements");
        n = int64_t(count);
      } else {
        const double count = std::ceil((double(limit) - double(start)) / double(delta));
        if (std::isnan(count)) return invalid_argument("Range: the element count is not a number");
        if (count > double(int64_t(1) << 40)) return invalid_argument("Range: too many elements");
        n = count > 0 ? int64_t(count) : 0;
      }
      ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, start_t.dtype(), {n}));
      T* out = y->data<T>();
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_integral_v<C>)
          out[i] = static_cast<T>(C(__int128(start) + __int128(i) * __int128(delta)));
        else
          out[i] = static_cast<T>(C(double(start) + double(i) * double(delta)));
      }
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Range", 1, kLatestOpset, RangeKernel);

}  // namespace onyx
