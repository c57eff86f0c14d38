// Conv: N-d convolution with groups, strides, dilations and padding, as im2col + GEMM.
// X (N, C, D1..Dn), W (M, C / group, k1..kn), optional B (M) -> Y (N, M, O1..On).
#include "kernels/conv_common.h"

namespace onyx {
namespace {

class ConvKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return parse_conv_attrs(info, &attrs_, &group_); }

  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(check_conv_types(ctx));
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_conv(attrs_, group_, x.shape(), w.shape()));
    const int64_t batch = x.dim(0), channels = x.dim(1), maps = w.dim(0);
    return run_float_conv(ctx, maps, g.out, [&]<typename CT>(const CT* xc, const CT* wc, CT* yc) {
      conv_gemm<CT>(xc, wc, yc, batch, channels, maps, group_, g);
    });
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Conv", 1, kLatestOpset, ConvKernel);

}  // namespace onyx
