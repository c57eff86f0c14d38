// ai.onnx.ml LinearRegressor: Y float [N, targets].
#include "ops/ml_shape.h"

namespace onyx::ops {
namespace {
Status infer_linear_regressor(InferenceContext& ctx) {
  ctx.set_output(0, DataType::kFloat, SymbolicShape{true, {ml_rows(ctx.input_shape(0)), known_dim(ctx.attr_int("targets", 1))}});
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "LinearRegressor", 1, 1000, infer_linear_regressor);
}  // namespace onyx::ops
