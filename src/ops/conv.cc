// Conv: X (N, C, D...), W (M, C/group, k...) -> Y (N, M, O...) of X's type; O from the window
// attributes (conv_pool_shape.h), kernel sizes from kernel_shape or W.
#include "ops/conv_pool_shape.h"

namespace onyx::ops {
namespace {
Status infer_conv(InferenceContext& ctx) { return infer_conv_like(ctx, 0, 1, ctx.input_elem_type(0)); }
}  // namespace
ONYX_REGISTER_OP_RULE("", "Conv", 1, 1000, infer_conv);
}  // namespace onyx::ops
