// OptionalHasElement: a bool scalar.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_optional_has_element(InferenceContext& ctx) {
  ctx.set_output(0, DataType::kBool, known_shape({}));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "OptionalHasElement", 15, 1000, infer_optional_has_element);
}  // namespace onyx::ops
