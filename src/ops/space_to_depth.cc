// SpaceToDepth: input 0's element type, [N, C*b*b, H/b, W/b] for 'blocksize' b.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_space_to_depth(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  const int64_t b = ctx.attr_int("blocksize", 0);
  if (b <= 0) return invalid_model("SpaceToDepth: blocksize must be positive, got ", b);
  if (!in.has_rank || b > (int64_t(1) << 20)) {  // rank unknown, or b * b might overflow
    ctx.set_output(0, elem, unknown_dims(4));
    return Status::Ok();
  }
  if (in.dims.size() != 4) return invalid_model("SpaceToDepth: the input must be 4-D, got rank ", in.dims.size());
  for (size_t d = 2; d < 4; ++d)
    if (in.dims[d].value && *in.dims[d].value % b != 0)
      return invalid_model("SpaceToDepth: dim ", d, " (", *in.dims[d].value, ") is not divisible by ", b);
  SymbolicShape out = in;
  out.dims[1] = dim_times(in.dims[1], b * b);
  out.dims[2] = dim_divided(in.dims[2], b);
  out.dims[3] = dim_divided(in.dims[3], b);
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "SpaceToDepth", 1, 1000, infer_space_to_depth);

}  // namespace onyx::ops
