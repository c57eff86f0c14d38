// BitCast: the element type 'to' (when onyx knows it), input 0's shape.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_bit_cast(InferenceContext& ctx) {
  const ir::Attribute* to = ctx.node().attribute("to");
  DataType elem = DataType::kUndefined;
  if (to && to->type == ir::Attribute::Type::kInt && to->i > 0 &&
      to->i != int64_t(DataType::kString) && is_valid_data_type(int(to->i)))
    elem = DataType(int(to->i));
  ctx.set_output(0, elem, ctx.input_shape(0));
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "BitCast", 26, 1000, infer_bit_cast);
}  // namespace onyx::ops
