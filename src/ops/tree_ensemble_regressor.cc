// ai.onnx.ml TreeEnsembleRegressor (1, 3): Y [N, n_targets] float.
#include "ops/tree_ensemble_shape.h"

namespace onyx::ops {
namespace {

Status infer_tree_ensemble_regressor(InferenceContext& ctx) {
  const int64_t targets = ctx.attr_int("n_targets", 1);
  ctx.set_output(0, DataType::kFloat,
                 tree_ensemble_shape({tree_ensemble_batch_dim(ctx), targets > 0 ? Dim{targets, "", ""} : Dim{}}));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onnx.ml", "TreeEnsembleRegressor", 1, 4, infer_tree_ensemble_regressor);

}  // namespace onyx::ops
