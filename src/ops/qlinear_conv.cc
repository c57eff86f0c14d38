// QLinearConv: inputs x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
// y_zero_point, B. Y (N, M, O...) has y_zero_point's type.
#include "ops/conv_pool_shape.h"

namespace onyx::ops {
namespace {
Status infer_qlinear_conv(InferenceContext& ctx) { return infer_conv_like(ctx, 0, 3, ctx.input_elem_type(7)); }
}  // namespace
ONYX_REGISTER_OP_RULE("", "QLinearConv", 10, 1000, infer_qlinear_conv);
}  // namespace onyx::ops
