// FusedMatMulBias (ai.onyx.training): Y = op(A) @ op(B) + bias, float32, with op a transpose of
// the last two dims where transA / transB say (read in place by oneDNN) and bias [N] added in
// the product's epilogue. A and B of rank 2 or more, batch dims broadcasting. A training
// model's Linear layers (MatMul(x, Transpose(W)) + Add(b), folded by training/transpose_folding)
// run as one primitive instead of a product and an elementwise pass.
#include <memory>

#include "kernels/kernel.h"
#include "kernels/matmul_common.h"
#include "kernels/onednn_matmul.h"

namespace onyx {
namespace {

class FusedMatMulBiasKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    trans_a_ = info.attr_int("transA", 0) != 0;
    trans_b_ = info.attr_int("transB", 0) != 0;
    matmul_ = std::make_unique<onednn::MatMul>(onednn::MatMulEpilogue{.alpha = 1.0f, .bias = true});
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const Tensor& bias = ctx.input(2);
    if (a.dtype() != DataType::kFloat || b.dtype() != DataType::kFloat || bias.dtype() != DataType::kFloat)
      return not_implemented("FusedMatMulBias (ai.onyx.training) for ", a.describe(), ", ", b.describe(), " and ",
                             bias.describe(), " (float32 only)");
    if (a.rank() < 2 || b.rank() < 2)
      return invalid_argument("FusedMatMulBias: A and B need rank 2 or more, got ", a.describe(), " and ", b.describe());
    auto op_shape = [](const Shape& stored, bool trans) {
      Shape s = stored;
      if (trans) std::swap(s[s.size() - 2], s[s.size() - 1]);
      return s;
    };
    ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, plan_matmul(op_shape(a.shape(), trans_a_), op_shape(b.shape(), trans_b_)));
    if (bias.rank() != 1 || bias.dim(0) != plan.n)
      return invalid_argument("FusedMatMulBias: bias must be [", plan.n, "], got ", bias.describe());
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat, plan.out));
    if (y->numel() == 0) return Status::Ok();
    if (plan.k == 0) {  // no products: every row is the bias
      for (int64_t i = 0; i < y->numel(); ++i) y->data<float>()[i] = bias.data<float>()[i % plan.n];
      return Status::Ok();
    }
    const onednn::MatMulShape shape = onednn::stored_matmul_shape(a.shape(), b.shape(), trans_a_, trans_b_);
    return matmul_->run(shape, a.data<float>(), b.data<float>(), bias.data<float>(), y->data<float>());
  }

 private:
  bool trans_a_ = false, trans_b_ = false;
  std::unique_ptr<onednn::MatMul> matmul_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "FusedMatMulBias", 1, kLatestOpset, FusedMatMulBiasKernel);

}  // namespace onyx
