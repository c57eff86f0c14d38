// DeformConv: X's type; (N, oC, O1..On) as Conv computes it from X, W and the window
// attributes (there is no auto_pad).
#include "ops/conv_pool_shape.h"
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_deform_conv(InferenceContext& ctx) { return infer_conv_like(ctx, 0, 1, ctx.input_elem_type(0)); }
}  // namespace

ONYX_REGISTER_OP_RULE("", "DeformConv", 22, 1000, infer_deform_conv);
}  // namespace onyx::ops
