// com.microsoft DynamicQuantizeMatMul: Y = numpy.matmul(A, B) shape, float32 (A's type).
#include "ops/matmul_shape.h"

namespace onyx::ops {
namespace {
Status infer_dynamic_quantize_matmul(InferenceContext& ctx) { return infer_matmul_like(ctx, 0, 1, ctx.input_elem_type(0)); }
}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "DynamicQuantizeMatMul", 1, 1000, infer_dynamic_quantize_matmul);
}  // namespace onyx::ops
