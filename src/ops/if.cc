// If: output i is what then_branch's and else_branch's declared output i have in common
// (type_merge.h): the element type when both agree, the dims both declare alike.
#include "ops/op_rule.h"
#include "ops/type_merge.h"

namespace onyx::ops {
namespace {
Status infer_if(InferenceContext& ctx) {
  const ir::Attribute* then_attr = ctx.node().attribute("then_branch");
  const ir::Attribute* else_attr = ctx.node().attribute("else_branch");
  if (!then_attr || !then_attr->g || !else_attr || !else_attr->g) return Status::Ok();
  const auto& then_out = then_attr->g->outputs;
  const auto& else_out = else_attr->g->outputs;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (size_t(i) >= then_out.size() || size_t(i) >= else_out.size()) break;
    ctx.set_output_type(i, common_type(then_out[size_t(i)].type, else_out[size_t(i)].type));
  }
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "If", 1, 1000, infer_if);
}  // namespace onyx::ops
