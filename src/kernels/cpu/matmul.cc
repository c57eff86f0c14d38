// MatMul: numpy.matmul semantics (batch broadcasting, 1-D operands).
// float32 runs through oneDNN (a constant B is packed once). float16 runs the same float32
// product: A (and a B that is not constant) widened exactly to float32, a constant B widened
// and packed once, Y rounded to float16 once from the float32 sums. Other floats compute in
// float / double; integers wrap around like two's-complement hardware.
#include <vector>

#include "kernels/convert.h"
#include "kernels/kernel.h"
#include "kernels/matmul_common.h"
#include "kernels/onednn_matmul.h"

namespace onyx {
namespace {

class MatMulKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const Tensor* b = info.constant_input(1);
    if (b && (b->dtype() == DataType::kFloat || b->dtype() == DataType::kFloat16) && b->rank() == 2 && b->numel() > 0) {
      Tensor wide;
      if (b->dtype() == DataType::kFloat16) {
        ONYX_ASSIGN_OR_RETURN(wide, Tensor::create(DataType::kFloat, b->shape(), nullptr, false));
        ONYX_RETURN_IF_ERROR(convert_elements(*b, wide));
      }
      const Tensor& b32 = wide.defined() ? wide : *b;
      ONYX_ASSIGN_OR_RETURN(onednn::PackedWeights packed,
                            onednn::MatMul::pack_constant_b(b32, false, kRowsHint,
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
    if (a.dtype() == DataType::kFloat16 && plan.k > 0) return float16_through_float32(ctx, plan, a, b);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, a.dtype(), plan.out));
    return matmul_reference(plan, a, b, *y);
  }

 private:
  static constexpr int64_t kRowsHint = 128;  // rows of A the packed layout is chosen for

  // float16 A and B: the product in float32 (see the file's comment).
  Status float16_through_float32(KernelContext& ctx, const MatMulPlan& plan, const Tensor& a, const Tensor& b) const {
    ONYX_ASSIGN_OR_RETURN(Tensor a32, ctx.allocate_scratch(DataType::kFloat, a.shape()));
    ONYX_RETURN_IF_ERROR(convert_elements(a, a32));
    Tensor b32;  // unread when B was packed
    if (!packed_) {
      ONYX_ASSIGN_OR_RETURN(b32, ctx.allocate_scratch(DataType::kFloat, b.shape()));
      ONYX_RETURN_IF_ERROR(convert_elements(b, b32));
    }
    ONYX_ASSIGN_OR_RETURN(Tensor y32, ctx.allocate_scratch(DataType::kFloat, plan.out));
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat16, plan.out));
    if (y->numel() == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(matmul_.run(onednn::numpy_matmul_shape(a.shape(), b.shape()), a32.data<float>(),
                                     packed_ ? nullptr : b32.data<float>(), nullptr, y32.data<float>()));
    return convert_elements(y32, *y);
  }
  onednn::MatMul matmul_{onednn::MatMulEpilogue{}};
  bool packed_ = false;  // B (float32, or float16 widened to float32) is packed
};

}  // namespace

ONYX_REGISTER_KERNEL("", "MatMul", 1, kLatestOpset, MatMulKernel);

}  // namespace onyx
