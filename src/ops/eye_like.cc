// EyeLike: the 'dtype' attribute's element type, else the input's; the input's (2-D) shape.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_eye_like(InferenceContext& ctx) {
  DataType elem = ctx.input_elem_type(0);
  if (ctx.has_attr("dtype")) {
    const int64_t code = ctx.attr_int("dtype", 0);
    if (code == 0 || !is_valid_data_type(int(code))) return invalid_model("EyeLike: invalid dtype ", code);
    elem = DataType(code);
  }
  const SymbolicShape in = ctx.input_shape(0);
  if (in.has_rank && in.dims.size() != 2) return invalid_model("EyeLike: the input must be 2-D, got rank ", in.dims.size());
  ctx.set_output(0, elem, in.has_rank ? in : unknown_dims(2));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "EyeLike", 1, 1000, infer_eye_like);

}  // namespace onyx::ops
