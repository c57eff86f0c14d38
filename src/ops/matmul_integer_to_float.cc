// com.microsoft MatMulIntegerToFloat: Y = numpy.matmul(A, B) shape with a_scale's element type.
#include "ops/matmul_shape.h"

namespace onyx::ops {
namespace {
Status infer_matmul_integer_to_float(InferenceContext& ctx) { return infer_matmul_like(ctx, 0, 1, ctx.input_elem_type(2)); }
}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "MatMulIntegerToFloat", 1, 1000, infer_matmul_integer_to_float);
}  // namespace onyx::ops
