// MatMul: numpy.matmul semantics (batch broadcasting, 1-D operands).
// float32 runs through oneDNN (a constant B is packed once); other floats compute in float /
// double; integers wrap around like two's-complement hardware.
#include <vector>

#include "kernels/kernel.h"
#include "kernels/matmul_common.h"
#include "kernels/onednn_matmul.h"

namespace onyx {
namespace {

class MatMulKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const Tensor* b = info.constant_input(1);
    if (b && b->dtype() == DataType::kFloat && b->rank() == 2 && b->numel() > 0) {
      ONYX_ASSIGN_OR_RETURN(onednn::PackedWeights packed,
                            onednn::MatMul::pack_b(b->data<float>(), b->shape(), false, kRowsHint,
                                                                   info.settings().bf16_gemm));
      matmul_.use_packed_b(std::move(packed));
      packed_ = true;
    }
    return Status::Ok();
  }

  // A packed B is never read again (a non-float A is refused before B's data is needed).
  std::vector<int> released_constant_inputs() const override { return packed_ ? std::vector<int>{1} : std::vector<int>{}; }

  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) return invalid_argument("A and B types differ: ", a.describe(), " and ", b.describe());
    ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, plan_matmul(a.shape(), b.shape()));
    if (a.dtype() == DataType::kFloat && plan.k > 0) {
      ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, a.dtype(), plan.out));
      if (y->numel() == 0) return Status::Ok();
      return matmul_.run(onednn::numpy_matmul_shape(a.shape(), b.shape()), a.data<float>(), b.data<float>(), nullptr,
                         y->data<float>());
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, a.dtype(), plan.out));
    return matmul_reference(plan, a, b, *y);
  }

 private:
  static constexpr int64_t kRowsHint = 128;  // rows of A the packed layout is chosen for
  onednn::MatMul matmul_{onednn::MatMulEpilogue{}};
  bool packed_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "MatMul", 1, kLatestOpset, MatMulKernel);

}  // namespace onyx
