// MatMulInteger: numpy.matmul of (u)int8 A and B with zero points -> int32.
#include "ops/matmul_shape.h"

namespace onyx::ops {
namespace {
Status infer_matmul_integer(InferenceContext& ctx) { return infer_matmul_like(ctx, 0, 1, DataType::kInt32); }
}  // namespace
ONYX_REGISTER_OP_RULE("", "MatMulInteger", 10, 1000, infer_matmul_integer);
}  // namespace onyx::ops
