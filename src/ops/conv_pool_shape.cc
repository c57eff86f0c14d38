#include "ops/conv_pool_shape.h"

#include <algorithm>

namespace onyx::ops {
namespace {

// Attribute value i of a per-dim list, or `fallback` when the list is absent.
int64_t at_or(const std::vector<int64_t>& v, size_t i, int64_t fallback) { return i < v.size() ? v[i] : fallback; }

bool lengths_fit(const WindowParams& p, size_t r) {
  auto fits = [&](const std::vector<int64_t>& v, size_t want) { return v.empty() || v.size() == want; };
  return fits(p.kernel_shape, r) && fits(p.strides, r) && fits(p.dilations, r) && fits(p.pads, 2 * r);
}

}  // namespace

WindowParams read_window_params(const InferenceContext& ctx) {
  WindowParams p;
  p.kernel_shape = ctx.attr_ints("kernel_shape");
  p.strides = ctx.attr_ints("strides");
  p.dilations = ctx.attr_ints("dilations");
  p.pads = ctx.attr_ints("pads");
  p.auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  p.ceil_mode = ctx.attr_int("ceil_mode", 0) != 0;
  return p;
}

int64_t spatial_rank(const SymbolicShape& x, const SymbolicShape& w, const WindowParams& p) {
  if (x.has_rank) return x.dims.size() >= 2 ? int64_t(x.dims.size()) - 2 : -1;
  if (!p.kernel_shape.empty()) return int64_t(p.kernel_shape.size());
  if (w.has_rank && w.dims.size() >= 2) return int64_t(w.dims.size()) - 2;
  if (!p.strides.empty()) return int64_t(p.strides.size());
  if (!p.dilations.empty()) return int64_t(p.dilations.size());
  if (!p.pads.empty()) return int64_t(p.pads.size() / 2);
  return -1;
}

std::optional<int64_t> forward_out_dim(const WindowParams& p, size_t d, size_t r, std::optional<int64_t> in,
                                       std::optional<int64_t> kernel) {
  if (!in || !kernel || !lengths_fit(p, r)) return std::nullopt;
  const int64_t s = at_or(p.strides, d, 1), dil = at_or(p.dilations, d, 1);
  if (s < 1 || dil < 1 || *kernel < 1 || *in < 0) return std::nullopt;
  if (p.auto_pad == "SAME_UPPER" || p.auto_pad == "SAME_LOWER") return int64_t((__int128(*in) + s - 1) / s);
  int64_t pad_begin = 0, pad_end = 0;
  if (p.auto_pad == "NOTSET") {
    pad_begin = at_or(p.pads, d, 0);
    pad_end = at_or(p.pads, d + r, 0);
  } else if (p.auto_pad != "VALID") {
    return std::nullopt;
  }
  // Hostile attributes may be near INT64_MAX: the arithmetic is in 128 bits, and a length
  // outside [0, 2^62] is left unknown (the kernel rejects such attributes at run).
  const __int128 span = __int128(*in) + pad_begin + pad_end - (__int128(*kernel - 1) * dil + 1);
  if (span < 0) return std::nullopt;  // the kernel rejects it at run
  __int128 out = span / s + 1;
  if (p.ceil_mode && p.auto_pad == "NOTSET") {
    out = (span + s - 1) / s + 1;
    if ((out - 1) * s >= __int128(*in) + pad_begin) --out;
  }
  if (out > (__int128(1) << 62)) return std::nullopt;
  return int64_t(out);
}

Status infer_conv_like(InferenceContext& ctx, int x_index, int w_index, DataType elem) {
  const SymbolicShape x = ctx.input_shape(x_index), w = ctx.input_shape(w_index);
  const WindowParams p = read_window_params(ctx);
  const int64_t r = spatial_rank(x, w, p);
  if (r < 0 || r > kMaxStaticRank - 2) {  // unknown_dims(r + 2) would have no dims to fill
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  SymbolicShape out = unknown_dims(r + 2);
  if (x.has_rank) out.dims[0] = x.dims[0];
  if (w.has_rank && !w.dims.empty()) out.dims[1] = w.dims[0];
  for (size_t d = 0; d < size_t(r); ++d) {
    std::optional<int64_t> in, k;
    if (x.has_rank) in = x.dims[d + 2].value;
    if (p.kernel_shape.size() == size_t(r)) k = p.kernel_shape[d];
    else if (p.kernel_shape.empty() && w.has_rank && w.dims.size() == size_t(r) + 2) k = w.dims[d + 2].value;
    out.dims[d + 2].value = forward_out_dim(p, d, size_t(r), in, k);
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

SymbolicShape pool_output_shape(const InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0);
  const WindowParams p = read_window_params(ctx);
  const int64_t r = spatial_rank(x, {}, p);
  if (r < 0 || r > kMaxStaticRank - 2) return {};  // unknown_dims(r + 2) would have no dims to fill
  SymbolicShape out = unknown_dims(r + 2);
  if (x.has_rank) {
    out.dims[0] = x.dims[0];
    out.dims[1] = x.dims[1];
  }
  if (p.kernel_shape.size() != size_t(r)) return out;  // required attribute: the kernel rejects it
  for (size_t d = 0; d < size_t(r); ++d) {
    std::optional<int64_t> in;
    if (x.has_rank) in = x.dims[d + 2].value;
    out.dims[d + 2].value = forward_out_dim(p, d, size_t(r), in, p.kernel_shape[d]);
  }
  return out;
}

Status infer_nhwc_conv_like(InferenceContext& ctx, int w_index, DataType elem) {
  const SymbolicShape x = ctx.input_shape(0), w = ctx.input_shape(w_index);
  const WindowParams p = read_window_params(ctx);
  SymbolicShape out = unknown_dims(4);
  if (x.has_rank && x.dims.size() != 4) return invalid_model("a channels-last conv takes a rank-4 X, got ", x.to_string());
  if (x.has_rank) out.dims[0] = x.dims[0];
  if (w.has_rank && !w.dims.empty()) out.dims[3] = w.dims[0];
  for (size_t d = 0; d < 2; ++d) {
    std::optional<int64_t> in, k;
    if (x.has_rank) in = x.dims[d + 1].value;
    if (p.kernel_shape.size() == 2) k = p.kernel_shape[d];
    else if (p.kernel_shape.empty() && w.has_rank && w.dims.size() == 4) k = w.dims[d + 2].value;
    out.dims[d + 1].value = forward_out_dim(p, d, 2, in, k);
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace onyx::ops
