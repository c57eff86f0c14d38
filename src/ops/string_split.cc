// StringSplit: Y string of X's shape + [unknown] (the most substrings, data-dependent);
// Z int64 of X's shape.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_string_split(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0);
  SymbolicShape y = x;
  if (y.has_rank) y.dims.push_back(Dim{});
  ctx.set_output(0, DataType::kString, std::move(y));
  if (ctx.num_outputs() > 1) ctx.set_output(1, DataType::kInt64, x);
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "StringSplit", 20, 1000, infer_string_split);
}  // namespace onyx::ops
