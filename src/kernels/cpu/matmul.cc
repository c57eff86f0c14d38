// MatMul: numpy.matmul semantics (batch broadcasting, 1-D operands).
// Floats compute in float / double; integers wrap around like two's-complement hardware.
#include <type_traits>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/gemm.h"
#include "kernels/kernel.h"
#include "kernels/matmul_common.h"

namespace onyx {
namespace {

class MatMulKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) return invalid_argument("A and B types differ: ", a.describe(), " and ", b.describe());
    ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, plan_matmul(a.shape(), b.shape()));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, a.dtype(), plan.out));
    if (y->numel() == 0) return Status::Ok();
    return dispatch<ONYX_FLOAT_TYPES, int32_t, int64_t, uint32_t, uint64_t>(a.dtype(), [&]<typename T>() -> Status {
      using CT = std::conditional_t<std::is_integral_v<T>, uint64_t, compute_t<T>>;
      std::vector<CT> abuf, bbuf, ybuf;
      const CT* ac = as_compute_type<CT>(a.data<T>(), a.numel(), abuf);
      const CT* bc = as_compute_type<CT>(b.data<T>(), b.numel(), bbuf);
      if constexpr (std::is_same_v<T, CT>) {
        batched_matmul<CT>(plan, ac, bc, y->data<T>());
      } else {
        ybuf.resize(size_t(y->numel()));
        batched_matmul<CT>(plan, ac, bc, ybuf.data());
        T* out = y->data<T>();
        for (int64_t i = 0; i < y->numel(); ++i) out[i] = static_cast<T>(ybuf[size_t(i)]);
      }
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "MatMul", 1, kLatestOpset, MatMulKernel);

}  // namespace onyx
