// CumProd (opset 26): running products along the 'axis' input (a scalar or one-element int32 /
// int64 tensor, negative counts from the end); exclusive=1 leaves out the current element (the
// first output is 1), reverse=1 multiplies from the end. Integer products wrap modulo 2^bits;
// float16 and bfloat16 accumulate in float.
#include <type_traits>

#include "kernels/dispatch.h"
#include "kernels/elementwise_binary.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class CumProdKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    exclusive_ = info.attr_int("exclusive", 0) != 0;
    reverse_ = info.attr_int("reverse", 0) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    if (!ctx.has_input(0) || !ctx.has_input(1)) return invalid_argument("CumProd needs inputs 'x' and 'axis'");
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(const int64_t axis_in, read_int_scalar(ctx.input(1), "axis"));
    ONYX_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_in, x.rank()));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    const int64_t n = x.dim(axis);
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    return dispatch<ONYX_FLOAT_TYPES, int32_t, int64_t, uint32_t, uint64_t>(x.dtype(), [&]<typename T>() -> Status {
      using C = compute_t<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j) {
          C acc = C(1);
          for (int64_t s = 0; s < n; ++s) {
            const int64_t i = reverse_ ? n - 1 - s : s;
            const int64_t at = (o * n + i) * inner + j;
            const C v = C(in[at]);
            if (exclusive_) out[at] = static_cast<T>(acc);
            acc = wrap_mul(acc, v);
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

ONYX_REGISTER_KERNEL("", "CumProd", 26, kLatestOpset, CumProdKernel);

}  // namespace onyx
