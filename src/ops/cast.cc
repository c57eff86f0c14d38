// Cast: the element type named by 'to', the shape of the input. 'to' is a TensorProto.DataType
// code from opset 6, a type name string ("FLOAT") before; either form is accepted.
#include "kernels/convert.h"
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_cast(InferenceContext& ctx) {
  const ir::Attribute* to = ctx.node().attribute("to");
  DataType elem = DataType::kUndefined;
  if (to && to->type == ir::Attribute::Type::kString) {
    if (std::optional<DataType> t = data_type_from_onnx_name(to->s)) elem = *t;
  } else if (to && to->type == ir::Attribute::Type::kInt) {
    if (to->i > 0 && to->i <= kLastDataTypeCode && is_valid_data_type(int(to->i))) elem = DataType(int(to->i));
  }
  ctx.set_output(0, elem, ctx.input_shape(0));
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "Cast", 1, 1000, infer_cast);
}  // namespace onyx::ops
