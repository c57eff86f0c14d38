// SequenceConstruct: a sequence of its inputs; the element type is what they all share.
#include "ops/op_rule.h"
#include "ops/type_merge.h"

namespace onyx::ops {
namespace {
Status infer_sequence_construct(InferenceContext& ctx) {
  ir::TypeInfo elem;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const ir::TypeInfo* t = ctx.input_type(i);
    if (!t) {
      elem = ir::TypeInfo{};
      break;
    }
    elem = i == 0 ? *t : common_type(elem, *t);
  }
  ctx.set_output_type(0, sequence_of(elem));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "SequenceConstruct", 11, 1000, infer_sequence_construct);
}  // namespace onyx::ops
