// MatMul: numpy.matmul of A and B (matmul_shape.h), A's element type.
#include "ops/matmul_shape.h"

namespace onyx::ops {
namespace {
Status infer_matmul(InferenceContext& ctx) { return infer_matmul_like(ctx, 0, 1, ctx.input_elem_type(0)); }
}  // namespace
ONYX_REGISTER_OP_RULE("", "MatMul", 1, 1000, infer_matmul);
}  // namespace onyx::ops
