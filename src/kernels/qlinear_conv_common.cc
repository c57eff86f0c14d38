#include "kernels/qlinear_conv_common.h"

#include <cmath>
#include <vector>

#include "kernels/conv_common.h"
#include "kernels/conv_integer_common.h"
#include "kernels/dispatch.h"
#include "kernels/quantize.h"

namespace onyx {
namespace {

bool is_8bit(DataType t) { return t == DataType::kUInt8 || t == DataType::kInt8; }

// Input i as float values: one, or `per` when per > 1 and it is 1-D of that length.
Result<std::vector<float>> scale_values(const KernelContext& ctx, int i, const char* name, int64_t per) {
  const Tensor& s = ctx.input(i);
  if (!s.defined() || !is_float_type(s.dtype()) || !(s.numel() == 1 || (per > 1 && s.rank() == 1 && s.dim(0) == per)))
    return invalid_argument(name, " must be a float scalar", per > 1 ? " or hold one value per output channel" : "",
                            ", got ", s.defined() ? s.describe() : std::string("nothing"));
  std::vector<float> v(size_t(s.numel()));
  for (int64_t k = 0; k < s.numel(); ++k) v[size_t(k)] = float(s.get_double(k));
  return v;
}

// The per-channel requantisation multipliers x_scale * w_scale[m] / y_scale, in float32 and in
// this order (the reference and oneDNN paths use the same values).
Result<std::vector<float>> multipliers(const KernelContext& ctx, int64_t maps) {
  ONYX_ASSIGN_OR_RETURN(std::vector<float> x_scale, scale_values(ctx, 1, "x_scale", 1));
  ONYX_ASSIGN_OR_RETURN(std::vector<float> w_scale, scale_values(ctx, 4, "w_scale", maps));
  ONYX_ASSIGN_OR_RETURN(std::vector<float> y_scale, scale_values(ctx, 6, "y_scale", 1));
  std::vector<float> m(w_scale.size());
  for (size_t i = 0; i < m.size(); ++i) m[i] = x_scale[0] * w_scale[i] / y_scale[0];
  return m;
}

Status check_bias(const KernelContext& ctx, int64_t maps) {
  if (!ctx.has_input(8)) return Status::Ok();
  const Tensor& bias = ctx.input(8);
  if (bias.dtype() != DataType::kInt32 || bias.rank() != 1 || bias.dim(0) != maps)
    return invalid_argument("B must be int32 of shape [", maps, "], got ", bias.describe());
  return Status::Ok();
}

}  // namespace

std::vector<int8_t> weights_minus_zero_point(const Tensor& w, const Tensor& w_zp) {
  if (!is_8bit(w.dtype()) || w.rank() < 1 || w.numel() == 0 || !w_zp.defined() || w_zp.dtype() != w.dtype())
    return {};
  const int64_t maps = w.dim(0);
  const bool per_channel = w_zp.numel() != 1;
  if (per_channel && (w_zp.rank() != 1 || w_zp.dim(0) != maps)) return {};
  const int64_t per = w.numel() / maps;
  std::vector<int8_t> out(size_t(w.numel()));
  bool fits = true;
  const Status typed = dispatch<uint8_t, int8_t>(w.dtype(), [&]<typename Q>() -> Status {
    const Q* in = w.data<Q>();
    const Q* z = w_zp.data<Q>();
    for (int64_t i = 0; i < w.numel() && fits; ++i) {
      const int v = int(in[i]) - int(z[per_channel ? i / per : 0]);
      fits = v >= -128 && v <= 127;
      out[size_t(i)] = int8_t(v);
    }
    return Status::Ok();
  });
  if (!typed.ok() || !fits) return {};
  return out;
}

Status QLinearConvRunner::prepare(const KernelInfo& info) {
  ONYX_RETURN_IF_ERROR(parse_conv_attrs(info, &attrs_, &group_));
  const Tensor* w = info.constant_input(3);
  const Tensor* w_zp = info.constant_input(5);
  if (w && w_zp && w->rank() >= 3 && w->rank() <= 5 && w->dim(0) % group_ == 0) {
    std::vector<int8_t> w8 = weights_minus_zero_point(*w, *w_zp);
    if (!w8.empty()) {
      fast_ = std::make_unique<onednn::QuantizedConv>(channels_last_);
      ONYX_RETURN_IF_ERROR(fast_->set_weights(std::move(w8), w->shape(), group_));
    }
  }
  if (channels_last_ && !fast_)
    return invalid_model("NhwcQLinearConv needs constant int8 / uint8 weights whose difference from their zero point "
                         "fits int8, of rank 3 to 5");
  return Status::Ok();
}

Status QLinearConvRunner::compute(KernelContext& ctx) const {
  const Tensor& x = ctx.input(0);
  const Tensor& x_zp = ctx.input(2);
  const Tensor& w = ctx.input(3);
  const Tensor& y_zp = ctx.input(7);
  if (!is_8bit(x.dtype())) return invalid_argument("x must be uint8 or int8, got ", x.describe());
  if (!y_zp.defined() || y_zp.numel() != 1 || !is_8bit(y_zp.dtype()))
    return invalid_argument("y_zero_point must be a uint8 or int8 scalar, got ",
                            y_zp.defined() ? y_zp.describe() : "nothing");
  if (x_zp.defined() && (x_zp.numel() != 1 || x_zp.dtype() != x.dtype()))
    return invalid_argument("x_zero_point must be a scalar of x's type, got ", x_zp.describe());
  const bool fast = fast_ && w.shape() == fast_->w_shape() && x.rank() == w.rank();
  if (!fast) {
    if (channels_last_) return invalid_argument("NhwcQLinearConv: w must keep the shape it had when the session was made");
    return compute_reference(ctx);
  }
  // oneDNN takes shapes in NCHW order.
  Shape x_nchw = x.shape();
  if (channels_last_) {
    x_nchw.insert(x_nchw.begin() + 1, x_nchw.back());
    x_nchw.pop_back();
  }
  ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_conv(attrs_, group_, x_nchw, w.shape()));
  if (!onednn::QuantizedConv::supports(g)) return compute_reference(ctx);
  const int64_t maps = w.dim(0);
  ONYX_ASSIGN_OR_RETURN(std::vector<float> scale, multipliers(ctx, maps));
  ONYX_RETURN_IF_ERROR(check_bias(ctx, maps));
  Shape y_shape{x.dim(0)};
  if (!channels_last_) y_shape.push_back(maps);
  y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
  if (channels_last_) y_shape.push_back(maps);
  ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, y_zp.dtype(), y_shape));
  if (y->numel() == 0) return Status::Ok();
  if (x.numel() == 0) return invalid_argument("x ", x.describe(), " is empty but y is not");
  onednn::QuantizedConvArgs a;
  a.x_shape = x_nchw;
  a.geometry = &g;
  a.x = x.raw_data();
  a.x_signed = x.dtype() == DataType::kInt8;
  a.x_zero_point = x_zp.defined() ? int32_t(x_zp.get_int64(0)) : 0;
  a.bias = ctx.has_input(8) ? ctx.input(8).data<int32_t>() : nullptr;
  a.scale = &scale;
  a.y = y->raw_data();
  a.y_signed = y_zp.dtype() == DataType::kInt8;
  a.y_zero_point = int32_t(y_zp.get_int64(0));
  return fast_->run(a);
}

Status QLinearConvRunner::compute_reference(KernelContext& ctx) const {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(3);
  const Tensor& y_zp = ctx.input(7);
  if (w.rank() < 1) return invalid_argument("w must have rank 3 or more, got ", w.describe());
  if (w.numel() > 0 && !w.raw_data())
    return error(StatusCode::kInternal, "QLinearConv: packed weights were released but the reference path needs them");
  const int64_t maps = w.dim(0);
  ONYX_ASSIGN_OR_RETURN(std::vector<float> scale, multipliers(ctx, maps));
  ONYX_RETURN_IF_ERROR(check_bias(ctx, maps));
  const bool has_bias = ctx.has_input(8);
  const Tensor& bias = ctx.input(8);
  ONYX_ASSIGN_OR_RETURN(IntegerConvResult r, integer_conv(attrs_, group_, x, ctx.input(2), w, ctx.input(5)));
  ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, y_zp.dtype(), r.y_shape));
  if (y->numel() == 0) return Status::Ok();
  const int64_t plane = r.geometry.out_size();
  const float zp = float(y_zp.get_double(0));
  return dispatch<uint8_t, int8_t>(y_zp.dtype(), [&]<typename Q>() -> Status {
    Q* out = y->data<Q>();
    for (int64_t i = 0; i < y->numel(); ++i) {
      const int64_t m = (i / plane) % maps;
      uint64_t acc = r.acc[size_t(i)];
      if (has_bias) acc += uint64_t(int64_t(bias.data<int32_t>()[m]));
      const float multiplier = scale[scale.size() == 1 ? 0 : size_t(m)];
      out[i] = saturate_round<Q>(std::nearbyint(float(static_cast<int32_t>(acc)) * multiplier) + zp);
    }
    return Status::Ok();
  });
}

}  // namespace onyx
