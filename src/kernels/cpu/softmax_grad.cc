// SoftmaxGrad (ai.onyx.training): the gradient of Softmax over the last axis, from dY and the
// forward output Y of one shape: dX = Y * (dY - sum(dY * Y)) per row, in one pass per row
// (rows in parallel) instead of Mul, ReduceSum, Sub and Mul over the whole tensor. float32;
// each row's dot product in 16 float lanes added in double.
#include <cstdint>

#include "core/parallel.h"
#include "kernels/kernel.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

class SoftmaxGradKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (dy.dtype() != DataType::kFloat || y.dtype() != DataType::kFloat)
      return not_implemented("SoftmaxGrad (ai.onyx.training) for ", y.describe(), " (float32 only)");
    if (dy.shape() != y.shape() || y.rank() < 1)
      return invalid_argument("SoftmaxGrad: dY ", dy.describe(), " and Y ", y.describe(), " must match (rank 1 or more)");
    ONYX_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output_uninitialized(0, DataType::kFloat, y.shape()));
    const int64_t cols = y.dim(y.rank() - 1);
    const int64_t rows = cols ? y.numel() / cols : 0;
    const float* pdy = dy.data<float>();
    const float* py = y.data<float>();
    float* pdx = dx->data<float>();
    parallel_for(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) vec::softmax_grad_row(pdy + r * cols, py + r * cols, pdx + r * cols, cols);
    });
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "SoftmaxGrad", 1, kLatestOpset, SoftmaxGradKernel);

}  // namespace onyx
