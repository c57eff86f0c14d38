// DepthToSpace: input 0's element type, [N, C/(b*b), H*b, W*b] for 'blocksize' b.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_depth_to_space(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  const int64_t b = ctx.attr_int("blocksize", 0);
  if (b <= 0) return invalid_model("DepthToSpace: blocksize must be positive, got ", b);
  if (!in.has_rank || b > (int64_t(1) << 20)) {  // rank unknown, or b * b might overflow
    ctx.set_output(0, elem, unknown_dims(4));
    return Status::Ok();
  }
  if (in.dims.size() != 4) return invalid_model("DepthToSpace: the input must be 4-D, got rank ", in.dims.size());
  if (in.dims[1].value && *in.dims[1].value % (b * b) != 0)
    return invalid_model("DepthToSpace: channels ", *in.dims[1].value, " are not divisible by ", b * b);
  SymbolicShape out = in;
  out.dims[1] = dim_divided(in.dims[1], b * b);
  out.dims[2] = dim_times(in.dims[2], b);
  out.dims[3] = dim_times(in.dims[3], b);
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "DepthToSpace", 1, 1000, infer_depth_to_space);

}  // namespace onyx::ops
