// QLinearMatMul: inputs a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
// y_zero_point; numpy.matmul of a and b in y_zero_point's type.
#include "ops/matmul_shape.h"

namespace onyx::ops {
namespace {
Status infer_qlinear_matmul(InferenceContext& ctx) { return infer_matmul_like(ctx, 0, 3, ctx.input_elem_type(7)); }
}  // namespace
ONYX_REGISTER_OP_RULE("", "QLinearMatMul", 10, 1000, infer_qlinear_matmul);
}  // namespace onyx::ops
