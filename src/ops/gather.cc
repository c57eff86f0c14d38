// Gather: data's element type, shape data[:axis] + indices.shape + data[axis+1:] (axis
// default 0). Needs both ranks for any shape.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_gather(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape data = ctx.input_shape(0);
  const SymbolicShape indices = ctx.input_shape(1);
  if (!data.has_rank || !indices.has_rank) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const int64_t rank = int64_t(data.dims.size());
  int64_t axis = ctx.attr_int("axis", 0);
  if (!normalize_axis(axis, rank)) return invalid_model("Gather: axis ", axis, " is out of range for rank ", rank);
  SymbolicShape out = unknown_dims(0);
  out.dims.insert(out.dims.end(), data.dims.begin(), data.dims.begin() + axis);
  out.dims.insert(out.dims.end(), indices.dims.begin(), indices.dims.end());
  out.dims.insert(out.dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Gather", 1, 1000, infer_gather);

}  // namespace onyx::ops
