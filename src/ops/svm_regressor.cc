// ai.onnx.ml SVMRegressor: Y float [N, 1].
#include "ops/ml_shape.h"

namespace onyx::ops {
namespace {
Status infer_svm_regressor(InferenceContext& ctx) {
  ctx.set_output(0, DataType::kFloat, SymbolicShape{true, {ml_rows(ctx.input_shape(0)), known_dim(1)}});
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "SVMRegressor", 1, 1000, infer_svm_regressor);
}  // namespace onyx::ops
