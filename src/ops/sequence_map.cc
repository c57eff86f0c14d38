// SequenceMap: output k is a sequence of the body's declared output k.
#include "ops/op_rule.h"
#include "ops/type_merge.h"

namespace onyx::ops {
namespace {
Status infer_sequence_map(InferenceContext& ctx) {
  const ir::Attribute* body_attr = ctx.node().attribute("body");
  if (!body_attr || !body_attr->g) return Status::Ok();
  const auto& body_out = body_attr->g->outputs;
  for (int i = 0; i < ctx.num_outputs() && size_t(i) < body_out.size(); ++i)
    ctx.set_output_type(i, sequence_of(body_out[size_t(i)].type));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "SequenceMap", 17, 1000, infer_sequence_map);
}  // namespace onyx::ops
