// SequenceLength: the number of elements, an int64 scalar.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_sequence_length(InferenceContext& ctx) {
  ctx.set_output(0, DataType::kInt64, known_shape({}));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "SequenceLength", 11, 1000, infer_sequence_length);
}  // namespace onyx::ops
