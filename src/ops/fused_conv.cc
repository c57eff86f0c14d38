// FusedConv (com.microsoft): Conv followed by an optional residual Z and an activation; Y has
// Conv's type and shape.
#include "ops/conv_pool_shape.h"

namespace onyx::ops {
namespace {
Status infer_fused_conv(InferenceContext& ctx) { return infer_conv_like(ctx, 0, 1, ctx.input_elem_type(0)); }
}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "FusedConv", 1, 1000, infer_fused_conv);
}  // namespace onyx::ops
