// Gemm: Y = alpha * A' * B' + beta * C, where A' = transA ? A^T : A (M x K), B' likewise
// (K x N), and C (optional from opset 11) broadcasts unidirectionally to (M, N). The legacy
// 'broadcast' attribute of opsets 1-6 needs no handling: a C that broadcasts is accepted.
// Integer types need integral alpha and beta and wrap around like two's-complement hardware.
// float32 runs through oneDNN (a constant B packed once, a [N] bias fused).
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/gemm.h"
#include "kernels/kernel.h"
#include "kernels/onednn_matmul.h"

namespace onyx {
namespace {

class GemmKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.0f);
    beta_ = info.attr_float("beta", 1.0f);
    trans_a_ = info.attr_int("transA", 0) != 0;
    trans_b_ = info.attr_int("transB", 0) != 0;
    product_ = std::make_unique<onednn::MatMul>(onednn::MatMulEpilogue{.alpha = alpha_});
    with_bias_ = std::make_unique<onednn::MatMul>(onednn::MatMulEpilogue{.alpha = 1.0f, .bias = true});
    accumulating_ = std::make_unique<onednn::MatMul>(onednn::MatMulEpilogue{.alpha = alpha_, .accumulate = true});
    if (const Tensor* b = info.constant_input(1); b && b->dtype() == DataType::kFloat && b->rank() == 2 && b->numel() > 0) {
      ONYX_ASSIGN_OR_RETURN(onednn::PackedWeights packed,
                            onednn::MatMul::pack_constant_b(*b, trans_b_, kRowsHint,
                                                                   info.settings().bf16_gemm));
      for (auto* mm : {product_.get(), with_bias_.get(), accumulating_.get()}) mm->use_packed_b(packed);
      packed_ = true;
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const bool has_c = ctx.has_input(2);
    const Tensor& c = ctx.input(2);
    if (a.dtype() != b.dtype() || (has_c && c.dtype() != a.dtype()))
      return invalid_argument("A, B and C must share one type, got ", a.describe(), ", ", b.describe(),
                              has_c ? ", " + c.describe() : std::string());
    if (a.rank() != 2 || b.rank() != 2)
      return invalid_argument("A and B must be 2-D, got ", a.describe(), " and ", b.describe());
    const int64_t m = trans_a_ ? a.dim(1) : a.dim(0), k = trans_a_ ? a.dim(0) : a.dim(1);
    const int64_t n = trans_b_ ? b.dim(0) : b.dim(1), kb = trans_b_ ? b.dim(1) : b.dim(0);
    if (k != kb) return invalid_argument("inner dims differ: A ", a.describe(), ", B ", b.describe());
    int64_t c_row_stride = 0, c_col_stride = 0;
    if (has_c) {
      const Shape& cs = c.shape();
      const int64_t cm = cs.size() == 2 ? cs[0] : 1, cn = cs.empty() ? 1 : cs.back();
      if (cs.size() > 2 || (cm != 1 && cm != m) || (cn != 1 && cn != n))
        return invalid_argument("C ", c.describe(), " does not broadcast to [", m, ",", n, "]");
      c_row_stride = cm == 1 ? 0 : cn;
      c_col_stride = cn == 1 ? 0 : 1;
    }
    const bool onednn_path = a.dtype() == DataType::kFloat && k > 0;
    ONYX_ASSIGN_OR_RETURN(Tensor* y, onednn_path ? ctx.allocate_output_uninitialized(0, a.dtype(), Shape{m, n})
                                                 : ctx.allocate_output(0, a.dtype(), Shape{m, n}));
    if (y->numel() == 0) return Status::Ok();
    if (onednn_path) return compute_float(a, b, has_c ? &c : nullptr, c_row_stride, c_col_stride, *y);

    return dispatch<ONYX_FLOAT_TYPES, int32_t, int64_t, uint32_t, uint64_t>(a.dtype(), [&]<typename T>() -> Status {
      using CT = std::conditional_t<std::is_integral_v<T>, uint64_t, compute_t<T>>;
      CT alpha, beta;
      if constexpr (std::is_integral_v<T>) {
        if (alpha_ != std::trunc(alpha_) || beta_ != std::trunc(beta_) || std::fabs(alpha_) > 1e18f ||
            std::fabs(beta_) > 1e18f)
          return not_implemented("integer Gemm with non-integral alpha ", alpha_, " or beta ", beta_);
        alpha = CT(int64_t(alpha_));
        beta = CT(int64_t(beta_));
      } else {
        alpha = CT(alpha_);
        beta = CT(beta_);
      }
      std::vector<CT> abuf, bbuf, ybuf;
      const CT* ac = as_compute_type<CT>(a.data<T>(), a.numel(), abuf);
      const CT* bc = as_compute_type<CT>(b.data<T>(), b.numel(), bbuf);
      CT* yc = nullptr;
      if constexpr (std::is_same_v<T, CT>) {
        yc = y->data<T>();
      } else {
        ybuf.resize(size_t(y->numel()));
        yc = ybuf.data();
      }
      if (has_c) {
        const T* cp = c.data<T>();
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            yc[i * n + j] = beta * static_cast<CT>(cp[i * c_row_stride + j * c_col_stride]);
      }
      gemm<CT>(trans_a_, trans_b_, m, n, k, alpha, ac, trans_a_ ? m : k, bc, trans_b_ ? k : n, CT(has_c ? 1 : 0), yc,
               n);
      if constexpr (!std::is_same_v<T, CT>) {
        T* out = y->data<T>();
        for (int64_t i = 0; i < y->numel(); ++i) out[i] = static_cast<T>(yc[i]);
      }
      return Status::Ok();
    });
  }

 public:
  std::vector<int> released_constant_inputs() const override { return packed_ ? std::vector<int>{1} : std::vector<int>{}; }

 private:
  static constexpr int64_t kRowsHint = 128;  // rows of A the packed layout is chosen for
  bool packed_ = false;
  // Y = alpha * A' * B' + beta * C in float32 through oneDNN: C as a fused bias when it is a
  // row [N] with alpha = beta = 1, else beta * C written into Y first and accumulated onto.
  Status compute_float(const Tensor& a, const Tensor& b, const Tensor* c, int64_t c_row_stride, int64_t c_col_stride,
                       Tensor& y) const {
    const onednn::MatMulShape shape{.a = a.shape(), .b = b.shape(), .trans_a = trans_a_, .trans_b = trans_b_};
    const int64_t m = y.dim(0), n = y.dim(1);
    if (!c || beta_ == 0.0f) return product_->run(shape, a.data<float>(), b.data<float>(), nullptr, y.data<float>());
    const bool row_bias = c_row_stride == 0 && c_col_stride == 1;
    if (row_bias && alpha_ == 1.0f && beta_ == 1.0f)
      return with_bias_->run(shape, a.data<float>(), b.data<float>(), c->data<float>(), y.data<float>());
    const float* cp = c->data<float>();
    float* yp = y.data<float>();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) yp[i * n + j] = beta_ * cp[i * c_row_stride + j * c_col_stride];
    return accumulating_->run(shape, a.data<float>(), b.data<float>(), nullptr, yp);
  }

  std::unique_ptr<onednn::MatMul> product_, with_bias_, accumulating_;
  float alpha_ = 1, beta_ = 1;
  bool trans_a_ = false, trans_b_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Gemm", 1, kLatestOpset, GemmKernel);

}  // namespace onyx
