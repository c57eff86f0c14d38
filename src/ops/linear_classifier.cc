// ai.onnx.ml LinearClassifier: Y labels [N] (int64 or string), Z float [N, E] (E = 2 for the
// binary form of one coefficient row).
#include "ops/ml_shape.h"

namespace onyx::ops {
namespace {
Status infer_linear_classifier(InferenceContext& ctx) {
  const Dim n = ml_rows(ctx.input_shape(0));
  ctx.set_output(0, ml_label_type(ctx, "classlabels_ints", "classlabels_strings"), SymbolicShape{true, {n}});
  int64_t rows = ml_attr_count(ctx, "intercepts");
  if (rows == 0) rows = ml_attr_count(ctx, "classlabels_ints") + ml_attr_count(ctx, "classlabels_strings");
  Dim width;
  if (rows > 0) width.value = rows == 1 ? 2 : rows;
  if (ctx.num_outputs() > 1) ctx.set_output(1, DataType::kFloat, SymbolicShape{true, {n, width}});
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "LinearClassifier", 1, 1000, infer_linear_classifier);
}  // namespace onyx::ops
