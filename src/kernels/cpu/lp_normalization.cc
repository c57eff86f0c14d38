// LpNormalization (opsets 1 and 22, the same function): y = x / ||x||_p along 'axis'
// (default -1, negative counts from the end), p = 1 or 2 (default 2). Where the norm is zero
// (every element along the axis is zero) the output is zero, as opset 22 defines. Norms are
// summed in double.
#include <cmath>

#include "kernels/broadcast.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class LpNormalizationKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    p_ = info.attr_int("p", 2);
    if (p_ != 1 && p_ != 2) return invalid_model("LpNormalization: attribute 'p' must be 1 or 2, got ", p_);
    axis_ = info.attr_int("axis", -1);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    if (!ctx.has_input(0)) return invalid_argument("LpNormalization: input 0 is missing");
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, x.rank()));
    const int64_t n = x.dim(axis);
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using C = compute_t<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j) {
          const int64_t base = o * n * inner + j;
          double norm = 0;
          for (int64_t i = 0; i < n; ++i) {
            const double v = double(C(in[base + i * inner]));
            norm += p_ == 1 ? std::fabs(v) : v * v;
          }
          if (p_ == 2) norm = std::sqrt(norm);
          for (int64_t i = 0; i < n; ++i) {
            const int64_t at = base + i * inner;
            out[at] = static_cast<T>(C(norm == 0 ? 0.0 : double(C(in[at])) / norm));
          }
        }
      return Status::Ok();
    });
  }

 private:
  int64_t p_ = 2;
  int64_t axis_ = -1;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "LpNormalization", 1, kLatestOpset, LpNormalizationKernel);

}  // namespace onyx
