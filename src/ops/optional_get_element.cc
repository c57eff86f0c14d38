// OptionalGetElement: the optional input's element type; a tensor or sequence input (opset 18
// allows them) passes through with its own type.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_optional_get_element(InferenceContext& ctx) {
  const ir::TypeInfo* in = ctx.input_type(0);
  if (!in) return Status::Ok();
  if (in->kind == ir::TypeInfo::Kind::kOptional) {
    if (in->inner) ctx.set_output_type(0, *in->inner);
  } else if (in->kind == ir::TypeInfo::Kind::kTensor || in->kind == ir::TypeInfo::Kind::kSequence) {
    ctx.set_output_type(0, *in);
  }
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "OptionalGetElement", 15, 1000, infer_optional_get_element);
}  // namespace onyx::ops
