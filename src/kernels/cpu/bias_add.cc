// com.microsoft BiasAdd (contrib op, since 1): Y[n, s, c] = X[n, s, c] + bias[c] + skip[n, s, c],
// X and skip (N, S, C) of one shape, bias (C). float32 and float16 (summed in float).
#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class BiasAddKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    const Tensor& skip = ctx.input(2);
    if (x.rank() != 3 || skip.shape() != x.shape() || bias.rank() != 1 || bias.dim(0) != x.dim(2) ||
        bias.dtype() != x.dtype() || skip.dtype() != x.dtype())
      return invalid_argument("BiasAdd takes X and skip (N, S, C) of one shape and type and bias (C), got X ",
                              x.describe(), ", bias ", bias.describe(), ", skip ", skip.describe());
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    const int64_t channels = x.dim(2);
    if (x.numel() == 0) return Status::Ok();
    const int64_t rows = x.numel() / channels;
    return dispatch<float, Float16>(x.dtype(), [&]<typename T>() -> Status {
      const T* xp = x.data<T>();
      const T* bp = bias.data<T>();
      const T* sp = skip.data<T>();
      T* yp = y->data<T>();
      parallel_for(rows, std::max<int64_t>(1, 8192 / channels), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t o = r * channels;
          for (int64_t c = 0; c < channels; ++c) yp[o + c] = T(float(xp[o + c]) + float(bp[c]) + float(sp[o + c]));
        }
      });
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "BiasAdd", 1, kLatestOpset, BiasAddKernel);

}  // namespace onyx
