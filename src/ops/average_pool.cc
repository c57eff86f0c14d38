// AveragePool: X (N, C, D...) -> Y (N, C, O...) of X's type (conv_pool_shape.h).
#include "ops/conv_pool_shape.h"

namespace onyx::ops {
namespace {
Status infer_average_pool(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input_elem_type(0), pool_output_shape(ctx));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "AveragePool", 1, 1000, infer_average_pool);
}  // namespace onyx::ops
