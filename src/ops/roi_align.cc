// RoiAlign: X (N, C, H, W), rois (num_rois, 4), batch_indices (num_rois) ->
// Y (num_rois, C, output_height, output_width) of X's type (output sizes default to 1).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_roi_align(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0), rois = ctx.input_shape(1), idx = ctx.input_shape(2);
  SymbolicShape out = unknown_dims(4);
  if (rois.has_rank && rois.dims.size() == 2) out.dims[0] = rois.dims[0];
  if (!out.dims[0].value && idx.has_rank && idx.dims.size() == 1 && idx.dims[0].value) out.dims[0] = idx.dims[0];
  if (x.has_rank && x.dims.size() == 4) out.dims[1] = x.dims[1];
  out.dims[2].value = ctx.attr_int("output_height", 1);
  out.dims[3].value = ctx.attr_int("output_width", 1);
  ctx.set_output(0, ctx.input_elem_type(0), std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "RoiAlign", 10, 1000, infer_roi_align);
}  // namespace onyx::ops
