// MatMulInteger: Y (int32) = (A - a_zero_point) x (B - b_zero_point) with numpy.matmul shapes,
// for int8 / uint8 A and B. Zero points are per tensor, per row of A, per column of B (see
// subtract_zero_point). Sums wrap around at 32 bits.
#include <vector>

#include "kernels/kernel.h"
#include "kernels/matmul_common.h"

namespace onyx {
namespace {

class MatMulIntegerKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, plan_matmul(a.shape(), b.shape()));
    ONYX_ASSIGN_OR_RETURN(std::vector<uint64_t> ac, subtract_zero_point(a, ctx.input(2), true));
    ONYX_ASSIGN_OR_RETURN(std::vector<uint64_t> bc, subtract_zero_point(b, ctx.input(3), false));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, DataType::kInt32, plan.out));
    if (y->numel() == 0) return Status::Ok();
    std::vector<uint64_t> acc(size_t(y->numel()));
    batched_matmul<uint64_t>(plan, ac.data(), bc.data(), acc.data());
    int32_t* out = y->data<int32_t>();
    for (int64_t i = 0; i < y->numel(); ++i) out[i] = static_cast<int32_t>(acc[size_t(i)]);
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "MatMulInteger", 10, kLatestOpset, MatMulIntegerKernel);

}  // namespace onyx
