// FusedMatMulBias (ai.onyx.training): Y = activation(op(A) @ op(B) + bias), float32, with op a
// transpose of the last two dims where transA / transB say (read in place by oneDNN), bias [N]
// added in the product's epilogue and `activation` ("" none, "Gelu" erf form, "FastGelu" tanh
// form) applied there too. A and B of rank 2 or more, batch dims broadcasting; a constant 2-D B
// is packed once, as MatMul's. A training model's Linear layers (MatMul(x, Transpose(W)) +
// Add(b), folded by training/transpose_folding) and an inference model's projections with their
// bias and GELU (optimizer/layout/matmul_bias_fusion) run as one primitive instead of a product
// and elementwise passes.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

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
    onednn::MatMulEpilogue epilogue{.alpha = 1.0f, .bias = true};
    const std::string activation = info.attr_string("activation", "");
    if (activation == "Gelu") {
      epilogue.activation = dnnl::algorithm::eltwise_gelu_erf;
    } else if (activation == "FastGelu") {
      epilogue.activation = dnnl::algorithm::eltwise_gelu_tanh;
    } else if (!activation.empty()) {
      return not_implemented("FusedMatMulBias: activation \"", activation, "\" (it takes \"\", \"Gelu\" or \"FastGelu\")");
    }
    activation_ = activation;
    matmul_ = std::make_unique<onednn::MatMul>(epilogue);
    const Tensor* b = info.constant_input(1);
    if (b && b->dtype() == DataType::kFloat && b->rank() == 2 && b->numel() > 0) {
      ONYX_ASSIGN_OR_RETURN(onednn::PackedWeights packed,
                            onednn::MatMul::pack_constant_b(*b, trans_b_, kRowsHint,
                                                   info.settings().bf16_gemm));
      matmul_->use_packed_b(std::move(packed));
      packed_ = true;
    }
    return Status::Ok();
  }

  // A packed B is never read again (a non-float input is refused before B's data is needed).
  std::vector<int> released_constant_inputs() const override { return packed_ ? std::vector<int>{1} : std::vector<int>{}; }

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
    if (plan.k == 0) {  // no products: every row is the bias (through the activation)
      for (int64_t i = 0; i < y->numel(); ++i) y->data<float>()[i] = activate(bias.data<float>()[i % plan.n]);
      return Status::Ok();
    }
    onednn::MatMulShape shape = onednn::stored_matmul_shape(a.shape(), b.shape(), trans_a_, trans_b_);
    // A B without batch dims (weights) takes all of A's rows as one 2-D product: the shape
    // the packed B was made for, and oneDNN's fastest form.
    if (!trans_a_ && std::all_of(b.shape().begin(), b.shape().end() - 2, [](int64_t d) { return d == 1; })) {
      int64_t rows = 1;
      for (size_t i = 0; i + 1 < a.shape().size(); ++i) rows *= a.dim(int64_t(i));
      shape.a = {rows, a.shape().back()};
      shape.b = {b.dim(b.rank() - 2), b.dim(b.rank() - 1)};
    }
    return matmul_->run(shape, a.data<float>(), b.data<float>(), bias.data<float>(), y->data<float>());
  }

 private:
  static constexpr int64_t kRowsHint = 128;  // rows of A the packed layout is chosen for

  float activate(float x) const {
    if (activation_ == "Gelu") return 0.5f * x * (1.f + std::erf(x * float(M_SQRT1_2)));
    if (activation_ == "FastGelu")
      return 0.5f * x * (1.f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    return x;
  }

  bool trans_a_ = false, trans_b_ = false, packed_ = false;
  std::string activation_;
  std::unique_ptr<onednn::MatMul> matmul_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "FusedMatMulBias", 1, kLatestOpset, FusedMatMulBiasKernel);

}  // namespace onyx
