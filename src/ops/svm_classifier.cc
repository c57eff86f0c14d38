// ai.onnx.ml SVMClassifier: Y labels [N]; Z float [N, W]: W = the class count in linear
// mode or with probabilities, else the number of class pairs (2 for two classes).
#include "ops/ml_shape.h"

namespace onyx::ops {
namespace {
Status infer_svm_classifier(InferenceContext& ctx) {
  const Dim n = ml_rows(ctx.input_shape(0));
  ctx.set_output(0, ml_label_type(ctx, "classlabels_ints", "classlabels_strings"), SymbolicShape{true, {n}});
  const int64_t classes = ml_attr_count(ctx, "classlabels_ints") + ml_attr_count(ctx, "classlabels_strings");
  int64_t vectors = 0;
  for (int64_t v : ctx.attr_ints("vectors_per_class")) vectors += v > 0 ? v : 0;
  const int64_t pairs = classes * (classes - 1) / 2;
  Dim width;
  if (classes >= 2 && classes < (int64_t(1) << 20))
    width.value = vectors == 0 || ml_attr_count(ctx, "prob_a") > 0 ? classes : pairs == 1 ? 2 : pairs;
  if (ctx.num_outputs() > 1) ctx.set_output(1, DataType::kFloat, SymbolicShape{true, {n, width}});
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "SVMClassifier", 1, 1000, infer_svm_classifier);
}  // namespace onyx::ops
