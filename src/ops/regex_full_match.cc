// RegexFullMatch: bool, X's shape.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_regex_full_match(InferenceContext& ctx) {
  ctx.set_output(0, DataType::kBool, ctx.input_shape(0));
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "RegexFullMatch", 20, 1000, infer_regex_full_match);
}  // namespace onyx::ops
