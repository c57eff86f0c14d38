// ConvTranspose: X (N, C, D...), W (C, M/group, k...) -> Y (N, M, O...) of X's type, with
// O = output_shape (its last n values) when given, D * stride for SAME_UPPER / SAME_LOWER, and
// stride * (D - 1) + output_padding + dilated kernel - pads otherwise (as the kernel computes).
#include "ops/conv_pool_shape.h"

#include <algorithm>

namespace onyx::ops {
namespace {

std::optional<int64_t> transpose_out_dim(const WindowParams& p, const std::vector<int64_t>& output_padding,
                                         const std::vector<int64_t>& output_shape, size_t d, size_t r,
                                         std::optional<int64_t> in, std::optional<int64_t> kernel) {
  if (!output_shape.empty()) {
    if (output_shape.size() != r && output_shape.size() != r + 2) return std::nullopt;
    return output_shape[output_shape.size() - r + d];
  }
  if (!in || !kernel || (!p.strides.empty() && p.strides.size() != r)) return std::nullopt;
  // Hostile attributes may be near INT64_MAX: the arithmetic is in 128 bits (every term is
  // an int64, so no product or sum of these overflows it), and a length outside [0, 2^62] is
  // left unknown.
  const __int128 s = p.strides.empty() ? 1 : p.strides[d];
  const __int128 dil = p.dilations.size() == r ? p.dilations[d] : 1;
  const __int128 op = output_padding.size() == r ? output_padding[d] : 0;
  __int128 pads = 0;
  if (p.auto_pad == "NOTSET" && p.pads.size() == 2 * r) pads = __int128(p.pads[d]) + p.pads[d + r];
  __int128 out = 0;
  if (p.auto_pad == "SAME_UPPER" || p.auto_pad == "SAME_LOWER") out = *in * s;
  else out = s * std::max<int64_t>(*in - 1, 0) + op + (__int128(*kernel) - 1) * dil + 1 - pads;
  if (out < 0 || out > (__int128(1) << 62)) return std::nullopt;
  return int64_t(out);
}

Status infer_conv_transpose(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape x = ctx.input_shape(0), w = ctx.input_shape(1);
  const WindowParams p = read_window_params(ctx);
  const int64_t r = spatial_rank(x, w, p);
  if (r < 0 || r > kMaxStaticRank - 2) {  // unknown_dims(r + 2) would have no dims to fill
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const std::vector<int64_t> output_padding = ctx.attr_ints("output_padding");
  const std::vector<int64_t> output_shape = ctx.attr_ints("output_shape");
  SymbolicShape out = unknown_dims(r + 2);
  if (x.has_rank) out.dims[0] = x.dims[0];
  const int64_t group = ctx.attr_int("group", 1);
  int64_t channels = 0;
  if (w.has_rank && w.dims.size() >= 2 && w.dims[1].value && group >= 1 &&
      !__builtin_mul_overflow(*w.dims[1].value, group, &channels))
    out.dims[1].value = channels;
  for (size_t d = 0; d < size_t(r); ++d) {
    std::optional<int64_t> in, k;
    if (x.has_rank) in = x.dims[d + 2].value;
    if (w.has_rank && w.dims.size() == size_t(r) + 2) k = w.dims[d + 2].value;
    else if (p.kernel_shape.size() == size_t(r)) k = p.kernel_shape[d];
    out.dims[d + 2].value = transpose_out_dim(p, output_padding, output_shape, d, size_t(r), in, k);
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_OP_RULE("", "ConvTranspose", 1, 1000, infer_conv_transpose);
}  // namespace onyx::ops
