// TfIdfVectorizer: X [C] or [N, C] -> float32 [O] or [N, O], O = max(ngram_indexes) + 1.
#include <algorithm>

#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_tf_idf_vectorizer(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0);
  Dim width;
  const std::vector<int64_t> indexes = ctx.attr_ints("ngram_indexes");
  if (!indexes.empty()) {
    const int64_t top = *std::max_element(indexes.begin(), indexes.end());
    if (top < INT64_MAX) width.value = top + 1;  // a hostile INT64_MAX leaves the width unknown
  }
  SymbolicShape out;
  if (x.has_rank && x.dims.size() == 1) out = SymbolicShape{true, {width}};
  else if (x.has_rank && x.dims.size() == 2) out = SymbolicShape{true, {x.dims[0], width}};
  ctx.set_output(0, DataType::kFloat, std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "TfIdfVectorizer", 9, 1000, infer_tf_idf_vectorizer);
}  // namespace onyx::ops
