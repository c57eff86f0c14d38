// SequenceInsert: the input sequence with one more tensor; the element type is what the
// sequence's elements and the tensor share.
#include "ops/op_rule.h"
#include "ops/type_merge.h"

namespace onyx::ops {
namespace {
Status infer_sequence_insert(InferenceContext& ctx) {
  const ir::TypeInfo* seq = ctx.input_type(0);
  const ir::TypeInfo* tensor = ctx.input_type(1);
  ir::TypeInfo elem;
  if (seq && seq->kind == ir::TypeInfo::Kind::kSequence && seq->inner && tensor) elem = common_type(*seq->inner, *tensor);
  ctx.set_output_type(0, sequence_of(elem));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "SequenceInsert", 11, 1000, infer_sequence_insert);
}  // namespace onyx::ops
