// SequenceAt: one element of the input sequence: a tensor of the sequence's element type.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_sequence_at(InferenceContext& ctx) {
  const ir::TypeInfo* seq = ctx.input_type(0);
  if (seq && seq->kind == ir::TypeInfo::Kind::kSequence && seq->inner) ctx.set_output_type(0, *seq->inner);
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "SequenceAt", 11, 1000, infer_sequence_at);
}  // namespace onyx::ops
