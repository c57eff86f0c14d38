// com.microsoft FusedMatMul (contrib op, since 1): Y = alpha * matmul(op(A), op(B)) with
// numpy.matmul semantics (batch broadcasting; a 1-D operand ignores the transposes). For an
// operand X of rank r >= 2, op(X) first moves dim 0 to position r - 2 when transBatchX
// (perm (1, ..., r-2, 0, r-1)), then swaps the last two dims when transX.
// Attributes alpha (1), transA, transB, transBatchA, transBatchB (0).
// float32 runs through oneDNN with alpha fused; a constant 2-D B is packed once as stored
// (transB read by the packing, not by a copy); transA / transB alone are read in place by
// oneDNN. Operands that need transBatch are copied transposed first. Other float types
// compute in float / double.
#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/matmul_common.h"
#include "kernels/onednn_matmul.h"

namespace onyx {
namespace {

// op(x) as a dense tensor (x itself when nothing moves).
Result<Tensor> apply_op(const Tensor& x, bool trans, bool trans_batch) {
  const size_t r = x.shape().size();
  if (r < 2 || (!trans && !trans_batch)) return x;
  std::vector<size_t> perm(r);
  std::iota(perm.begin(), perm.end(), size_t(0));
  if (trans_batch) {
    perm.erase(perm.begin());
    perm.insert(perm.end() - 1, 0);
  }
  if (trans) std::swap(perm[r - 2], perm[r - 1]);
  std::vector<int64_t> stride(r, 1);
  for (size_t d = r - 1; d > 0; --d) stride[d - 1] = stride[d] * x.dim(int64_t(d));
  Shape shape(r);
  std::vector<int64_t> strides(r);
  for (size_t i = 0; i < r; ++i) {
    shape[i] = x.dim(int64_t(perm[i]));
    strides[i] = stride[perm[i]];
  }
  ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::create(x.dtype(), shape, nullptr, /*zero_fill=*/false));
  ONYX_RETURN_IF_ERROR(strided_copy(x, 0, strides, shape, out));
  return out;
}

class FusedMatMulKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.f);
    trans_a_ = info.attr_int("transA", 0) != 0;
    trans_b_ = info.attr_int("transB", 0) != 0;
    trans_batch_a_ = info.attr_int("transBatchA", 0) != 0;
    trans_batch_b_ = info.attr_int("transBatchB", 0) != 0;
    matmul_ = std::make_unique<onednn::MatMul>(onednn::MatMulEpilogue{.alpha = alpha_});
    const Tensor* b = info.constant_input(1);
    if (b && b->dtype() == DataType::kFloat && b->rank() == 2 && b->numel() > 0) {
      ONYX_ASSIGN_OR_RETURN(onednn::PackedWeights packed,
                            onednn::MatMul::pack_constant_b(*b, trans_b_, kRowsHint,
                                                   info.settings().bf16_gemm));
      matmul_->use_packed_b(std::move(packed));
      packed_b_dims_ = b->shape();
    }
    return Status::Ok();
  }

  std::vector<int> released_constant_inputs() const override {
    return packed_b_dims_.empty() ? std::vector<int>{} : std::vector<int>{1};
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& a_in = ctx.input(0);
    const Tensor& b_in = ctx.input(1);
    if (a_in.dtype() != b_in.dtype())
      return invalid_argument("FusedMatMul: A and B types differ: ", a_in.describe(), " and ", b_in.describe());
    if (!is_float_type(a_in.dtype()))
      return not_implemented("FusedMatMul (com.microsoft, opset 1) takes float types, got ", a_in.describe());
    if (packed_b_dims_.empty() && a_in.dtype() == DataType::kFloat && !trans_batch_a_ && !trans_batch_b_ &&
        (trans_a_ || trans_b_) && a_in.rank() >= 2 && b_in.rank() >= 2)
      return run_transposed_in_place(ctx, a_in, b_in);
    ONYX_ASSIGN_OR_RETURN(Tensor a, apply_op(a_in, trans_a_, trans_batch_a_));
    if (!packed_b_dims_.empty()) {
      // B is the packed constant: plan with op(B)'s shape, run with B as stored.
      const Shape b_op = trans_b_ ? Shape{packed_b_dims_[1], packed_b_dims_[0]} : packed_b_dims_;
      ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, plan_matmul(a.shape(), b_op));
      ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, a.dtype(), plan.out));
      if (y->numel() == 0) return Status::Ok();
      onednn::MatMulShape shape = onednn::numpy_matmul_shape(a.shape(), b_op);
      shape.b = packed_b_dims_;
      shape.trans_b = trans_b_;
      return matmul_->run(shape, a.data<float>(), nullptr, nullptr, y->data<float>());
    }
    ONYX_ASSIGN_OR_RETURN(Tensor b, apply_op(b_in, trans_b_, trans_batch_b_));
    ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, plan_matmul(a.shape(), b.shape()));
    if (a.dtype() == DataType::kFloat && plan.k > 0) {
      ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, a.dtype(), plan.out));
      if (y->numel() == 0) return Status::Ok();
      return matmul_->run(onednn::numpy_matmul_shape(a.shape(), b.shape()), a.data<float>(), b.data<float>(), nullptr,
                          y->data<float>());
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, a.dtype(), plan.out));
    ONYX_RETURN_IF_ERROR(matmul_reference(plan, a, b, *y));
    if (alpha_ != 1.f) scale(*y);
    return Status::Ok();
  }

 private:
  static constexpr int64_t kRowsHint = 128;  // rows of A the packed layout is chosen for

  // float32 with transA / transB only: oneDNN reads the operands as stored (its strides say
  // which dims are swapped), so nothing is copied.
  Status run_transposed_in_place(KernelContext& ctx, const Tensor& a, const Tensor& b) const {
    auto op_shape = [](const Shape& stored, bool trans) {
      Shape s = stored;
      if (trans) std::swap(s[s.size() - 2], s[s.size() - 1]);
      return s;
    };
    ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, plan_matmul(op_shape(a.shape(), trans_a_), op_shape(b.shape(), trans_b_)));
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat, plan.out));
    if (y->numel() == 0) return Status::Ok();
    if (plan.k == 0) {
      std::fill(y->data<float>(), y->data<float>() + y->numel(), 0.f);
      return Status::Ok();
    }
    const onednn::MatMulShape shape = onednn::stored_matmul_shape(a.shape(), b.shape(), trans_a_, trans_b_);
    return matmul_->run(shape, a.data<float>(), b.data<float>(), nullptr, y->data<float>());
  }

  static bool is_float_type(DataType t) {
    return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16;
  }
  void scale(Tensor& y) const {
    (void)dispatch<ONYX_FLOAT_TYPES>(y.dtype(), [&]<typename T>() -> Status {
      T* p = y.data<T>();
      for (int64_t i = 0; i < y.numel(); ++i) p[i] = T(compute_t<T>(p[i]) * compute_t<T>(alpha_));
      return Status::Ok();
    });
  }

  float alpha_ = 1.f;
  bool trans_a_ = false, trans_b_ = false, trans_batch_a_ = false, trans_batch_b_ = false;
  std::unique_ptr<onednn::MatMul> matmul_;
  Shape packed_b_dims_;  // B as stored, when packed
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "FusedMatMul", 1, kLatestOpset, FusedMatMulKernel);

}  // namespace onyx
