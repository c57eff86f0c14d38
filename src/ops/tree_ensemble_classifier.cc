// ai.onnx.ml TreeEnsembleClassifier (1, 3): Y [N] int64 or string labels (by which classlabels_*
// is given), Z [N, classes] float.
#include "ops/tree_ensemble_shape.h"

namespace onyx::ops {
namespace {

Status infer_tree_ensemble_classifier(InferenceContext& ctx) {
  const ir::Attribute* strings = ctx.node().attribute("classlabels_strings");
  const ir::Attribute* ints = ctx.node().attribute("classlabels_int64s");
  const bool use_strings = strings && !strings->strings.empty();
  const size_t classes = use_strings ? strings->strings.size() : (ints ? ints->ints.size() : 0);
  const Dim n = tree_ensemble_batch_dim(ctx);
  ctx.set_output(0, use_strings ? DataType::kString : DataType::kInt64, tree_ensemble_shape({n}));
  if (ctx.num_outputs() > 1) {
    Dim e = classes > 0 ? Dim{int64_t(classes), "", ""} : Dim{};
    ctx.set_output(1, DataType::kFloat, tree_ensemble_shape({n, e}));
  }
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onnx.ml", "TreeEnsembleClassifier", 1, 4, infer_tree_ensemble_classifier);

}  // namespace onyx::ops
