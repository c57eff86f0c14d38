// Trilu: keeps the upper (upper=1: j - i >= k) or lower (upper=0: j - i <= k) triangle of
// each matrix in the last two dims and zeroes the rest; k is the optional input 1.
#include <algorithm>

#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class TriluKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    upper_ = info.attr_int("upper", 1) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) return invalid_argument("Trilu: the input must have rank >= 2, got ", x.describe());
    int64_t k = 0;
    if (ctx.has_input(1)) {
      ONYX_ASSIGN_OR_RETURN(k, read_int_scalar(ctx.input(1), "k"));
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), x.shape()));
    const int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
    const int64_t matrices = rows * cols > 0 ? x.numel() / (rows * cols) : 0;
    // Keep columns [lo, hi) of row i; offsets are clamped to avoid overflow with huge k.
    const int64_t kk = std::clamp<int64_t>(k, -rows - 1, cols + 1);
    return dispatch_by_size(x.dtype(), [&]<typename U>() -> Status {
      const U* in = x.data<U>();
      U* out = y->data<U>();
      for (int64_t m = 0; m < matrices; ++m)
        for (int64_t i = 0; i < rows; ++i) {
          const int64_t lo = upper_ ? std::clamp<int64_t>(i + kk, 0, cols) : 0;
          const int64_t hi = upper_ ? cols : std::clamp<int64_t>(i + kk + 1, 0, cols);
          const int64_t base = (m * rows + i) * cols;
          for (int64_t j = lo; j < hi; ++j) out[base + j] = in[base + j];
        }
      return Status::Ok();
    });
  }

 private:
  bool upper_ = true;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Trilu", 1, kLatestOpset, TriluKernel);

}  // namespace onyx
