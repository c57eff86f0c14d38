// SequenceEmpty: a sequence of tensors of the 'dtype' attribute (float32 default), any shape.
#include "ops/op_rule.h"
#include "ops/type_merge.h"

namespace onyx::ops {
namespace {
Status infer_sequence_empty(InferenceContext& ctx) {
  const int64_t code = ctx.attr_int("dtype", int64_t(DataType::kFloat));
  ir::TypeInfo elem;
  elem.kind = ir::TypeInfo::Kind::kTensor;
  elem.elem_type = is_valid_data_type(int(code)) ? DataType(code) : DataType::kUndefined;
  ctx.set_output_type(0, sequence_of(elem));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "SequenceEmpty", 11, 1000, infer_sequence_empty);
}  // namespace onyx::ops
