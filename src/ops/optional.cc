// Optional: an optional of its input's type, or of the 'type' attribute when it has no input.
#include <memory>

#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_optional(InferenceContext& ctx) {
  ir::TypeInfo t;
  t.kind = ir::TypeInfo::Kind::kOptional;
  if (ctx.has_input(0)) {
    if (const ir::TypeInfo* in = ctx.input_type(0)) t.inner = std::make_shared<ir::TypeInfo>(*in);
  } else if (const ir::Attribute* a = ctx.node().attribute("type")) {
    t.inner = std::make_shared<ir::TypeInfo>(a->type_proto);
  }
  if (!t.inner) t.inner = std::make_shared<ir::TypeInfo>();
  ctx.set_output_type(0, std::move(t));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "Optional", 15, 1000, infer_optional);
}  // namespace onyx::ops
