// ai.onnx.ml OneHotEncoder: Y float [*X.shape, K], K = the number of categories.
#include "ops/ml_shape.h"

namespace onyx::ops {
namespace {
Status infer_one_hot_encoder(InferenceContext& ctx) {
  SymbolicShape out = ctx.input_shape(0);
  if (out.has_rank) out.dims.push_back(known_dim(ml_attr_count(ctx, "cats_int64s") + ml_attr_count(ctx, "cats_strings")));
  ctx.set_output(0, DataType::kFloat, std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "OneHotEncoder", 1, 1000, infer_one_hot_encoder);
}  // namespace onyx::ops
