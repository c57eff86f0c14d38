// ai.onnx.ml DictVectorizer: Y [1, V] of the map's value type, V = the vocabulary's size.
#include "ops/ml_shape.h"

namespace onyx::ops {
namespace {
Status infer_dict_vectorizer(InferenceContext& ctx) {
  const ir::TypeInfo* x = ctx.input_type(0);
  const DataType value = x && x->kind == ir::TypeInfo::Kind::kMap && x->inner ? x->inner->elem_type : DataType::kUndefined;
  const int64_t v = ml_attr_count(ctx, "int64_vocabulary") + ml_attr_count(ctx, "string_vocabulary");
  ctx.set_output(0, value, SymbolicShape{true, {known_dim(1), known_dim(v)}});
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "DictVectorizer", 1, 1000, infer_dict_vectorizer);
}  // namespace onyx::ops
