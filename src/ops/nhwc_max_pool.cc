// NhwcMaxPool (com.microsoft): MaxPool over a channels-last X (N, H, W, C) -> Y (N, H', W', C)
// of X's type.
#include "ops/conv_pool_shape.h"

namespace onyx::ops {
namespace {
Status infer_nhwc_max_pool(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0);
  const WindowParams p = read_window_params(ctx);
  SymbolicShape out = unknown_dims(4);
  if (x.has_rank && x.dims.size() != 4) return invalid_model("NhwcMaxPool takes a rank-4 X, got ", x.to_string());
  if (x.has_rank) {
    out.dims[0] = x.dims[0];
    out.dims[3] = x.dims[3];
  }
  if (p.kernel_shape.size() == 2)
    for (size_t d = 0; d < 2; ++d) {
      std::optional<int64_t> in;
      if (x.has_rank) in = x.dims[d + 1].value;
      out.dims[d + 1].value = forward_out_dim(p, d, 2, in, p.kernel_shape[d]);
    }
  ctx.set_output(0, ctx.input_elem_type(0), std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "NhwcMaxPool", 1, 1000, infer_nhwc_max_pool);
}  // namespace onyx::ops
