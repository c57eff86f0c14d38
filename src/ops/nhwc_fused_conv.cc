// NhwcFusedConv (com.microsoft): FusedConv with X, Z and Y channels-last: X (N, H, W, C),
// W (M, C/group, kH, kW) -> Y (N, H', W', M) of X's type.
#include "ops/conv_pool_shape.h"

namespace onyx::ops {
namespace {
Status infer_nhwc_fused_conv(InferenceContext& ctx) { return infer_nhwc_conv_like(ctx, 1, ctx.input_elem_type(0)); }
}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "NhwcFusedConv", 1, 1000, infer_nhwc_fused_conv);
}  // namespace onyx::ops
