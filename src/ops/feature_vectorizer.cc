// ai.onnx.ml FeatureVectorizer: Y float [N, sum(inputdimensions)].
#include "ops/ml_shape.h"

namespace onyx::ops {
namespace {
Status infer_feature_vectorizer(InferenceContext& ctx) {
  int64_t total = 0;
  for (int64_t d : ctx.attr_ints("inputdimensions")) {
    if (d < 0 || d > (int64_t(1) << 40)) return Status::Ok();  // the kernel refuses it
    total += d;
  }
  const SymbolicShape x = ctx.input_shape(0);
  Dim n;
  if (x.has_rank && !x.dims.empty()) n = x.dims[0];
  ctx.set_output(0, DataType::kFloat, SymbolicShape{true, {n, known_dim(total)}});
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "FeatureVectorizer", 1, 1000, infer_feature_vectorizer);
}  // namespace onyx::ops
