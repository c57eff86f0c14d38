// InvertedResidual (ai.onyx): X (N, H, W, Cin) -> Y (N, Ho, Wo, Cout), the depthwise stage's
// window (Wd, input 3, with the node's strides and pads) giving Ho and Wo, the projection's
// weight (Wp, input 5: (Cout, Cmid, 1, 1)) giving Cout; see kernels/cpu/inverted_residual.cc.
#include "ops/conv_pool_shape.h"

namespace onyx::ops {
namespace {

Status infer_inverted_residual(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0), wd = ctx.input_shape(3), wp = ctx.input_shape(5);
  const WindowParams p = read_window_params(ctx);
  if (x.has_rank && x.dims.size() != 4) return invalid_model("InvertedResidual takes a rank-4 X, got ", x.to_string());
  SymbolicShape out = unknown_dims(4);
  if (x.has_rank) out.dims[0] = x.dims[0];
  if (wp.has_rank && !wp.dims.empty()) out.dims[3] = wp.dims[0];
  for (size_t d = 0; d < 2; ++d) {
    std::optional<int64_t> in, k;
    if (x.has_rank) in = x.dims[d + 1].value;
    if (wd.has_rank && wd.dims.size() == 4) k = wd.dims[d + 2].value;
    out.dims[d + 1].value = forward_out_dim(p, d, 2, in, k);
  }
  ctx.set_output(0, ctx.input_elem_type(0), std::move(out));
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_OP_RULE("ai.onyx", "InvertedResidual", 1, 1000, infer_inverted_residual);
}  // namespace onyx::ops
