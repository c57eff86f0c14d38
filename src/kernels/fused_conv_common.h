// FusedConv and NhwcFusedConv (com.microsoft): Y = activation(conv(X, W) + B + Z), float32,
// through oneDNN with the bias, the residual Z (a sum post-op) and the activation fused into
// the convolution. NhwcFusedConv takes X, Z and Y channels-last (N, H, W, C), 2-D only; W is
// (M, C / group, k...) for both. Attributes: Conv's, plus activation / activation_params
// (fused_activation.h).
#pragma once
#include <array>
#include <cstring>
#include <memory>

#include "kernels/conv_common.h"
#include "kernels/fused_activation.h"
#include "kernels/onednn_conv.h"

namespace onyx {

template <bool kChannelsLast>
class FusedConvKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_conv_attrs(info, &attrs_, &group_));
    ONYX_ASSIGN_OR_RETURN(activation_, parse_fused_activation(info));
    const Tensor* w = info.constant_input(1);
    for (int variant = 0; variant < 4; ++variant) {
      onednn::ConvEpilogue e;
      e.channels_last = kChannelsLast;
      e.bias = (variant & 1) != 0;
      e.accumulate = (variant & 2) != 0;
      e.activation = activation_.onednn_algorithm();
      e.activation_alpha = activation_.onednn_alpha();
      e.activation_beta = activation_.onednn_beta();
      convs_[size_t(variant)] = std::make_unique<onednn::Conv>(e);
      if (w && w->dtype() == DataType::kFloat) convs_[size_t(variant)]->set_constant_w(w->data<float>());
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const char* op = kChannelsLast ? "NhwcFusedConv" : "FusedConv";
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const bool has_bias = ctx.has_input(2), has_z = ctx.has_input(3);
    const Tensor& b = ctx.input(2);
    const Tensor& z = ctx.input(3);
    if (x.dtype() != DataType::kFloat || w.dtype() != DataType::kFloat || (has_bias && b.dtype() != DataType::kFloat) ||
        (has_z && z.dtype() != DataType::kFloat))
      return not_implemented(op, " (com.microsoft, opset 1) runs float32 only, got X ", x.describe(), ", W ",
                             w.describe());
    if (kChannelsLast && x.rank() != 4) return invalid_argument(op, " takes a rank-4 X (N, H, W, C), got ", x.describe());
    // X's shape in NCHW order, as the geometry and oneDNN see it.
    Shape x_nchw = x.shape();
    if (kChannelsLast) x_nchw = {x.dim(0), x.dim(3), x.dim(1), x.dim(2)};
    ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_conv(attrs_, group_, x_nchw, w.shape()));
    if (!onednn::Conv::supports(g)) return not_implemented(op, " with ", g.rank(), " spatial dims");
    const int64_t maps = w.dim(0);
    if (has_bias && (b.rank() != 1 || b.dim(0) != maps))
      return invalid_argument("bias ", b.describe(), " must have shape [", maps, "]");
    Shape y_shape{x.dim(0), maps};
    y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
    if (kChannelsLast) y_shape = {x.dim(0), g.out[0], g.out[1], maps};
    if (has_z && z.shape() != y_shape)
      return invalid_argument(op, ": Z ", z.describe(), " must have Y's shape ", shape_to_string(y_shape));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), y_shape));
    if (y->numel() == 0) return Status::Ok();
    if (x_nchw[1] == 0) return invalid_argument(op, ": X has no channels");
    const onednn::Conv& conv = *convs_[size_t((has_bias ? 1 : 0) | (has_z ? 2 : 0))];
    ONYX_RETURN_IF_ERROR(conv.run(x_nchw, w.shape(), group_, g, x.data<float>(), w.data<float>(),
                                  has_bias ? b.data<float>() : nullptr, has_z ? z.data<float>() : nullptr,
                                  y->data<float>()));
    if (activation_.needs_apply()) activation_.apply(y->data<float>(), y->numel());
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
  FusedActivation activation_;
  std::array<std::unique_ptr<onednn::Conv>, 4> convs_;  // by (bias ? 1 : 0) | (Z ? 2 : 0)
};

}  // namespace onyx
