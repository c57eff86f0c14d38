// NhwcFusedConv (com.microsoft): FusedConv with X, Z and Y channels-last: X (N, H, W, C),
// W (M, C/group, kH, kW) -> Y (N, H', W', M) of X's type.
#include "ops/conv_pool_shape.h"

namespace onyx::ops {
namespace {
Status infer_nhwc_fused_conv(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0), w = ctx.input_shape(1);
  const WindowParams p = read_window_params(ctx);
  SymbolicShape out = unknown_dims(4);
  if (x.has_rank && x.dims.size() != 4) return invalid_model("NhwcFusedConv takes a rank-4 X, got ", x.to_string());
  if (x.has_rank) out.dims[0] = x.dims[0];
  if (w.has_rank && !w.dims.empty()) out.dims[3] = w.dims[0];
  for (size_t d = 0; d < 2; ++d) {
    std::optional<int64_t> in, k;
    if (x.has_rank) in = x.dims[d + 1].value;
    if (p.kernel_shape.size() == 2) k = p.kernel_shape[d];
    else if (p.kernel_shape.empty() && w.has_rank && w.dims.size() == 4) k = w.dims[d + 2].value;
    out.dims[d + 1].value = forward_out_dim(p, d, 2, in, k);
  }
  ctx.set_output(0, ctx.input_elem_type(0), std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "NhwcFusedConv", 1, 1000, infer_nhwc_fused_conv);
}  // namespace onyx::ops
