// ConvInteger: Conv over (u)int8 x and w with zero points -> int32 Y (N, M, O...).
#include "ops/conv_pool_shape.h"

namespace onyx::ops {
namespace {
Status infer_conv_integer(InferenceContext& ctx) { return infer_conv_like(ctx, 0, 1, DataType::kInt32); }
}  // namespace
ONYX_REGISTER_OP_RULE("", "ConvInteger", 10, 1000, infer_conv_integer);
}  // namespace onyx::ops
