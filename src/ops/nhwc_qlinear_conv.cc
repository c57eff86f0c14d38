// NhwcQLinearConv (com.microsoft, onyx's channels-last QLinearConv): QLinearConv's inputs with
// X (N, H, W, C) and W (M, C/group, kH, kW) -> Y (N, H', W', M) of y_zero_point's type.
#include "ops/conv_pool_shape.h"

namespace onyx::ops {
namespace {
Status infer_nhwc_qlinear_conv(InferenceContext& ctx) { return infer_nhwc_conv_like(ctx, 3, ctx.input_elem_type(7)); }
}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "NhwcQLinearConv", 1, 1000, infer_nhwc_qlinear_conv);
}  // namespace onyx::ops
