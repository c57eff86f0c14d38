// Constant: the type and shape of its one value attribute: value / sparse_value (the tensor
// as loaded), value_float / value_int / value_string (scalars of float32, int64, string),
// value_floats / value_ints / value_strings (1-D of those).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_constant(InferenceContext& ctx) {
  const auto& attrs = ctx.node().attributes;
  if (attrs.size() != 1) return Status::Ok();  // malformed; the kernel says why
  const std::string& name = attrs.begin()->first;
  const ir::Attribute& a = attrs.begin()->second;
  if (name == "value" || name == "sparse_value") {
    if (a.t.defined()) ctx.set_output(0, a.t.dtype(), known_shape(a.t.shape()));
  } else if (name == "value_float") {
    ctx.set_output(0, DataType::kFloat, known_shape({}));
  } else if (name == "value_int") {
    ctx.set_output(0, DataType::kInt64, known_shape({}));
  } else if (name == "value_string") {
    ctx.set_output(0, DataType::kString, known_shape({}));
  } else if (name == "value_floats") {
    ctx.set_output(0, DataType::kFloat, known_shape({int64_t(a.floats.size())}));
  } else if (name == "value_ints") {
    ctx.set_output(0, DataType::kInt64, known_shape({int64_t(a.ints.size())}));
  } else if (name == "value_strings") {
    ctx.set_output(0, DataType::kString, known_shape({int64_t(a.strings.size())}));
  }
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Constant", 1, 1000, infer_constant);

}  // namespace onyx::ops
