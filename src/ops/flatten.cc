// Flatten: input 0's element type, shape [prod(dims[:axis]), prod(dims[axis:])] with axis
// default 1 (negative from opset 11). Always rank 2.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_flatten(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  SymbolicShape out = unknown_dims(2);
  if (in.has_rank) {
    const int64_t rank = int64_t(in.dims.size());
    int64_t axis = ctx.attr_int("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank) return invalid_model("Flatten: axis ", ctx.attr_int("axis", 1), " is out of range for rank ", rank);
    out.dims[0] = dim_product(in.dims, 0, size_t(axis));
    out.dims[1] = dim_product(in.dims, size_t(axis), in.dims.size());
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Flatten", 1, 1000, infer_flatten);

}  // namespace onyx::ops
