// MaxPool: X (N, C, D...) -> Y (N, C, O...) of X's type and, when asked for (opset 8+),
// Indices of the same shape in int64.
#include "ops/conv_pool_shape.h"

namespace onyx::ops {
namespace {
Status infer_max_pool(InferenceContext& ctx) {
  SymbolicShape shape = pool_output_shape(ctx);
  ctx.set_output(0, ctx.input_elem_type(0), shape);
  if (ctx.num_outputs() > 1) ctx.set_output(1, DataType::kInt64, std::move(shape));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "MaxPool", 1, 1000, infer_max_pool);
}  // namespace onyx::ops
