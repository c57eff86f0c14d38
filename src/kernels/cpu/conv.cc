// Conv: N-d convolution with groups, strides, dilations and padding.
// X (N, C, D1..Dn), W (M, C / group, k1..kn), optional B (M) -> Y (N, M, O1..On).
// float32 with 1 to 3 spatial dims runs through oneDNN (a constant W packed once, B fused),
// except that a non-constant W outnumbering the activations (training's late layers) takes
// one GEMM per group over the whole batch (conv_batched_gemm.h); the other types and ranks
// as im2col + GEMM.
#include <memory>

#include "core/parallel.h"
#include "kernels/conv_batched_gemm.h"
#include "kernels/conv_common.h"
#include "kernels/onednn_conv.h"

namespace onyx {
namespace {

class ConvKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_conv_attrs(info, &attrs_, &group_));
    plain_ = std::make_unique<onednn::Conv>(onednn::ConvEpilogue{});
    with_bias_ = std::make_unique<onednn::Conv>(onednn::ConvEpilogue{.bias = true});
    if (const Tensor* w = info.constant_input(1); w && w->dtype() == DataType::kFloat) {
      constant_w_ = true;
      plain_->set_constant_w(w->data<float>());
      with_bias_->set_constant_w(w->data<float>());
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(check_conv_types(ctx));
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_conv(attrs_, group_, x.shape(), w.shape()));
    const int64_t batch = x.dim(0), channels = x.dim(1), maps = w.dim(0);
    if (x.dtype() == DataType::kFloat && onednn::Conv::supports(g) && channels > 0) return compute_onednn(ctx, g);
    return run_float_conv(ctx, maps, g.out, [&]<typename CT>(const CT* xc, const CT* wc, CT* yc) {
      conv_gemm<CT>(xc, wc, yc, batch, channels, maps, group_, g);
    });
  }

 private:
  Status compute_onednn(KernelContext& ctx, const WindowGeometry& g) const {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const bool has_bias = ctx.has_input(2);
    const Tensor& b = ctx.input(2);
    const int64_t maps = w.dim(0);
    if (has_bias && (b.rank() != 1 || b.dim(0) != maps))
      return invalid_argument("bias ", b.describe(), " must have shape [", maps, "]");
    Shape y_shape{x.dim(0), maps};
    y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), y_shape));
    if (y->numel() == 0) return Status::Ok();
    if (!constant_w_ && conv_batched_gemm_preferred(x.shape(), w.shape(), group_, g)) {
      float* yp = y->data<float>();
      ONYX_RETURN_IF_ERROR(
          conv_batched_gemm_forward(ctx, x.shape(), w.shape(), group_, g, x.data<float>(), w.data<float>(), yp));
      if (has_bias) {
        const float* bp = b.data<float>();
        const int64_t plane = g.out_size();
        parallel_for(y->numel() / plane, 16, [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i)
            for (int64_t o = 0; o < plane; ++o) yp[i * plane + o] += bp[i % maps];
        });
      }
      return Status::Ok();
    }
    const onednn::Conv& conv = has_bias ? *with_bias_ : *plain_;
    return conv.run(x.shape(), w.shape(), group_, g, x.data<float>(), w.data<float>(),
                    has_bias ? b.data<float>() : nullptr, nullptr, y->data<float>());
  }

  WindowAttrs attrs_;
  int64_t group_ = 1;
  std::unique_ptr<onednn::Conv> plain_, with_bias_;
  bool constant_w_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Conv", 1, kLatestOpset, ConvKernel);

}  // namespace onyx
