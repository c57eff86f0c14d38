// ConvWeightGrad (ai.onyx.training, opset 1): the gradient of Conv with respect to its
// weights, for the gradient builder's Conv rule.
//   inputs  X (N, C, D1..Dn), dY (N, M, O1..On): the forward Conv's input and its output's
//           gradient; attributes kernel_shape (required), strides, dilations, pads, group as
//           the forward Conv had them (explicit pads; auto_pad NOTSET);
//   output  dW (M, C / group, k1..kn): dW_g = sum over n of dY_g[n] (M/g x O) times
//           im2col(X_g[n])^T (O x C/g*K). float32 runs as one GEMM per group over the whole
//           batch where the weights outnumber the activations (conv_batched_gemm.h), else,
//           with 1 to 3 spatial dims, as oneDNN's convolution backward-weights; the rest (float64, other ranks) as im2col and GEMM
//           (oneDNN's JIT sgemm for float32, onyx's own for double), a range of output rows
//           at a time.
#include <algorithm>
#include <type_traits>
#include <vector>

#include <oneapi/dnnl/dnnl.h>

#include "kernels/conv_batched_gemm.h"
#include "kernels/conv_common.h"
#include "kernels/onednn_conv_backward_weights.h"

namespace onyx {
namespace {

template <typename T>
void gemm_nt_accumulate(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    if (dnnl_sgemm('N', 'T', m, n, k, 1.f, a, lda, b, ldb, 1.f, c, ldc) == dnnl_success) return;
  }
  gemm<T>(false, true, m, n, k, T(1), a, lda, b, ldb, T(1), c, ldc);
}

class ConvWeightGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_conv_attrs(info, &attrs_, &group_));
    kernel_shape_ = info.attr_ints("kernel_shape");
    if (kernel_shape_.empty()) return invalid_model("ConvWeightGrad needs kernel_shape");
    for (int64_t k : kernel_shape_)
      if (k < 1 || k >= (int64_t(1) << 31)) return invalid_model("ConvWeightGrad kernel_shape value ", k, " is out of range");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& dy = ctx.input(1);
    if (x.dtype() != dy.dtype() || (x.dtype() != DataType::kFloat && x.dtype() != DataType::kDouble))
      return invalid_argument("ConvWeightGrad takes float32 or float64 X and dY of one type; got ", x.describe(), " and ",
                              dy.describe());
    if (x.rank() != int64_t(kernel_shape_.size()) + 2 || dy.rank() != x.rank() || dy.dim(0) != x.dim(0))
      return invalid_argument("ConvWeightGrad: X ", x.describe(), " and dY ", dy.describe(), " do not fit kernel_shape of ",
                              kernel_shape_.size(), " dims");
    const int64_t batch = x.dim(0), channels = x.dim(1), maps = dy.dim(1);
    if (group_ < 1 || channels % group_ != 0 || maps % group_ != 0)
      return invalid_argument("ConvWeightGrad: group ", group_, " does not divide ", channels, " and ", maps);
    const int64_t cg = channels / group_, mg = maps / group_;
    Shape w_shape{maps, cg};
    w_shape.insert(w_shape.end(), kernel_shape_.begin(), kernel_shape_.end());
    ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_conv(attrs_, group_, x.shape(), w_shape));
    for (size_t d = 0; d < g.rank(); ++d)
      if (g.out[d] != dy.dim(int64_t(2 + d)))
        return invalid_argument("ConvWeightGrad: dY ", dy.describe(), " is not the forward Conv's output for X ", x.describe());
    if (x.dtype() == DataType::kFloat && x.numel() > 0 && conv_batched_gemm_preferred(x.shape(), w_shape, group_, g)) {
      ONYX_ASSIGN_OR_RETURN(Tensor * dw, ctx.allocate_output_uninitialized(0, x.dtype(), w_shape));
      return conv_batched_gemm_backward_weights(ctx, x.shape(), w_shape, group_, g, x.data<float>(), dy.data<float>(),
                                                dw->data<float>());
    }
    if (x.dtype() == DataType::kFloat && onednn::ConvBackwardWeights::supports(x.shape(), w_shape, group_, g)) {
      ONYX_ASSIGN_OR_RETURN(Tensor * dw, ctx.allocate_output_uninitialized(0, x.dtype(), w_shape));
      return backward_weights_.run(x.shape(), w_shape, group_, g, x.data<float>(), dy.data<float>(), dw->data<float>(),
                                   nullptr);
    }
    ONYX_ASSIGN_OR_RETURN(Tensor * dw, ctx.allocate_output(0, x.dtype(), w_shape));  // zero-filled: accumulated into
    if (dw->numel() == 0 || x.numel() == 0) return Status::Ok();
    const int64_t I = g.in_size(), O = g.out_size(), K = g.kernel_size(), rows = cg * K;
    const int64_t out_rows = g.out_rows(), row_size = g.row_size();
    const int64_t chunk = std::min(out_rows, rows_per_chunk(g, rows));
    return dispatch<float, double>(x.dtype(), [&]<typename T>() -> Status {
      std::vector<T> col(size_t(rows * chunk * row_size));
      const T* xp = x.data<T>();
      const T* dyp = dy.data<T>();
      T* dwp = dw->data<T>();
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t gi = 0; gi < group_; ++gi)
          for (int64_t r0 = 0; r0 < out_rows; r0 += chunk) {
            const int64_t r1 = std::min(out_rows, r0 + chunk), L = (r1 - r0) * row_size;
            im2col(xp + (n * channels + gi * cg) * I, cg, g, r0, r1, col.data());
            // dW_g (mg x cg*K) += dY_g[n][:, r0..r1) (mg x L, row stride O) * col^T (L x cg*K)
            gemm_nt_accumulate<T>(mg, rows, L, dyp + (n * maps + gi * mg) * O + r0 * row_size, O, col.data(), L,
                                  dwp + gi * mg * rows, rows);
          }
      return Status::Ok();
    });
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
  std::vector<int64_t> kernel_shape_;
  onednn::ConvBackwardWeights backward_weights_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "ConvWeightGrad", 1, kLatestOpset, ConvWeightGradKernel);

}  // namespace onyx
