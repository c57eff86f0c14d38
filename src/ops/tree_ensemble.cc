// ai.onnx.ml TreeEnsemble (5): Y [N, n_targets] of X's type.
#include "ops/tree_ensemble_shape.h"

namespace onyx::ops {
namespace {

Status infer_tree_ensemble(InferenceContext& ctx) {
  const int64_t targets = ctx.attr_int("n_targets", 0);
  ctx.set_output(0, ctx.input_elem_type(0),
                 tree_ensemble_shape({tree_ensemble_batch_dim(ctx), targets > 0 ? Dim{targets, "", ""} : Dim{}}));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onnx.ml", "TreeEnsemble", 5, 1000, infer_tree_ensemble);

}  // namespace onyx::ops
