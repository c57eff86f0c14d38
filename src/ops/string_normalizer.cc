// StringNormalizer: string X [C] or [1, C] -> string [C'] or [1, C']. Without stopwords
// C' = C (1 when C = 0: an all-dropped input gives one empty string); with stopwords C' is
// data-dependent.
#include <algorithm>

#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_string_normalizer(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0);
  SymbolicShape out;
  if (x.has_rank && (x.dims.size() == 1 || x.dims.size() == 2)) {
    out = unknown_dims(int64_t(x.dims.size()));
    if (x.dims.size() == 2) out.dims[0].value = 1;
    const Dim& c = x.dims.back();
    const auto* stopwords = ctx.node().attribute("stopwords");
    if ((!stopwords || stopwords->strings.empty()) && c.value) out.dims.back().value = std::max<int64_t>(*c.value, 1);
  }
  ctx.set_output(0, DataType::kString, std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "StringNormalizer", 10, 1000, infer_string_normalizer);
}  // namespace onyx::ops
