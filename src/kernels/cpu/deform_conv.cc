// DeformConv (opset 22): N-d deformable convolution (https://arxiv.org/abs/1703.06211,
// modulated: https://arxiv.org/abs/1811.11168).
//   X (N, C, D1..Dn), W (oC, C/group, k1..kn), offset (N, offset_group * prod(k) * n, O1..On),
//   optional B (oC) and mask (N, offset_group * prod(k), O1..On).
// Output (N, oC, O1..On) with O_d = floor((D_d + pad_begin_d + pad_end_d - dilated k_d) / stride_d) + 1,
// which offset's spatial dims must equal. Kernel tap k of output position o reads input
// channel c (in offset group c / (C / offset_group)) at the fractional point
//   p_d = o_d * stride_d - pad_begin_d + k_d * dilation_d + offset[n, g, k, d, o]
// by multilinear interpolation of the 2^n neighbouring pixels, a neighbour outside the image
// counting as zero; the sample is multiplied by mask[n, g, k, o] (default 1). Then, per group,
// out = W . samples + B. Float types; computed in float (double for double).
#include <cmath>
#include <string>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class DeformConvKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    group_ = info.attr_int("group", 1);
    offset_group_ = info.attr_int("offset_group", 1);
    if (group_ <= 0 || offset_group_ <= 0) return invalid_model("DeformConv: group and offset_group must be positive");
    kernel_shape_ = info.attr_ints("kernel_shape");
    dilations_ = info.attr_ints("dilations");
    pads_ = info.attr_ints("pads");
    strides_ = info.attr_ints("strides");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    for (int i = 0; i < 3; ++i)
      if (!ctx.has_input(i)) return invalid_argument("DeformConv: input ", i, " is missing");
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor& offset = ctx.input(2);
    const bool has_bias = ctx.has_input(3), has_mask = ctx.has_input(4);
    if (x.rank() < 3) return invalid_argument("X must be (N, C, D1..Dn) with n >= 1, got ", x.describe());
    const size_t n = size_t(x.rank() - 2);
    const int64_t batch = x.dim(0), channels = x.dim(1), out_channels = w.rank() > 0 ? w.dim(0) : 0;
    if (w.rank() != x.rank() || w.dtype() != x.dtype())
      return invalid_argument("W must be (oC, C/group, k1..kn) of X's type, got ", w.describe());
    if (channels % group_ != 0 || out_channels % group_ != 0 || w.dim(1) * group_ != channels)
      return invalid_argument("channels do not fit group ", group_, ": X ", x.describe(), ", W ", w.describe());
    if (channels % offset_group_ != 0)
      return invalid_argument("the channel count ", channels, " is not divisible by offset_group ", offset_group_);
    std::vector<int64_t> kernel(w.shape().begin() + 2, w.shape().end());
    if (!kernel_shape_.empty() && kernel_shape_ != kernel)
      return invalid_argument("attribute kernel_shape does not match W ", w.describe());
    const std::vector<int64_t> dil = dilations_.empty() ? std::vector<int64_t>(n, 1) : dilations_;
    const std::vector<int64_t> str = strides_.empty() ? std::vector<int64_t>(n, 1) : strides_;
    const std::vector<int64_t> pads = pads_.empty() ? std::vector<int64_t>(2 * n, 0) : pads_;
    if (dil.size() != n || str.size() != n || pads.size() != 2 * n)
      return invalid_argument("dilations and strides need ", n, " values and pads ", 2 * n);
    Shape out_shape{batch, out_channels};
    int64_t taps = 1, positions = 1;
    for (size_t d = 0; d < n; ++d) {
      if (dil[d] <= 0 || str[d] <= 0 || kernel[d] <= 0)
        return invalid_argument("kernel dims, dilations and strides must be positive");
      const int64_t room = x.dim(int64_t(2 + d)) + pads[d] + pads[d + n] - (dil[d] * (kernel[d] - 1) + 1);
      if (room < 0) return invalid_argument("the dilated kernel is larger than the padded input along dim ", d);
      out_shape.push_back(room / str[d] + 1);
      taps *= kernel[d];
      positions *= out_shape.back();
    }
    Shape want_offset{batch, offset_group_ * taps * int64_t(n)};
    want_offset.insert(want_offset.end(), out_shape.begin() + 2, out_shape.end());
    if (offset.dtype() != x.dtype() || offset.shape() != want_offset)
      return invalid_argument("offset must have shape ", shape_to_string(want_offset), ", got ", offset.describe());
    if (has_bias) {
      const Tensor& b = ctx.input(3);
      if (b.dtype() != x.dtype() || b.rank() != 1 || b.dim(0) != out_channels)
        return invalid_argument("B must have shape [", out_channels, "], got ", b.describe());
    }
    if (has_mask) {
      Shape want_mask = want_offset;
      want_mask[1] = offset_group_ * taps;
      const Tensor& m = ctx.input(4);
      if (m.dtype() != x.dtype() || m.shape() != want_mask)
        return invalid_argument("mask must have shape ", shape_to_string(want_mask), ", got ", m.describe());
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    if (shape_size(out_shape) == 0) return Status::Ok();
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using C = compute_t<T>;
      // samples[c][k][o]: channel c's value at tap k of output position o, times the mask.
      ONYX_ASSIGN_OR_RETURN(Tensor samples, ctx.allocate_scratch(data_type_of<C>, {channels, taps, positions}));
      C* col = samples.data<C>();
      const Shape in_spatial(x.shape().begin() + 2, x.shape().end());
      const int64_t image = shape_size(in_spatial);
      const int64_t channels_per_offset_group = channels / offset_group_;
      const int64_t in_per_group = channels / group_, out_per_group = out_channels / group_;
      const T* xd = x.data<T>();
      const T* od = offset.data<T>();
      const T* md = has_mask ? ctx.input(4).data<T>() : nullptr;
      const T* wd = w.data<T>();
      T* yd = y->data<T>();
      std::vector<int64_t> k_idx(n), o_idx(n), base(n);
      std::vector<double> frac(n);
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t g = 0; g < offset_group_; ++g)
          for (int64_t k = 0; k < taps; ++k) {
            for (int64_t rest = k, d = int64_t(n) - 1; d >= 0; --d) {
              k_idx[size_t(d)] = rest % kernel[size_t(d)];
              rest /= kernel[size_t(d)];
            }
            for (int64_t o = 0; o < positions; ++o) {
              for (int64_t rest = o, d = int64_t(n) - 1; d >= 0; --d) {
                o_idx[size_t(d)] = rest % out_shape[size_t(2 + d)];
                rest /= out_shape[size_t(2 + d)];
              }
              bool finite = true;
              for (size_t d = 0; d < n; ++d) {
                const int64_t row = ((b * offset_group_ + g) * taps + k) * int64_t(n) + int64_t(d);
                const double p = double(o_idx[d] * str[d] - pads[d] + k_idx[d] * dil[d]) +
                                 double(C(od[row * positions + o]));
                finite = finite && std::isfinite(p) && std::fabs(p) < 1e15;
                const double fl = finite ? std::floor(p) : 0;
                base[d] = int64_t(fl);
                frac[d] = p - fl;
              }
              const double m = md ? double(C(md[((b * offset_group_ + g) * taps + k) * positions + o])) : 1.0;
              for (int64_t c = g * channels_per_offset_group; c < (g + 1) * channels_per_offset_group; ++c) {
                const T* plane = xd + (b * channels + c) * image;
                double v = 0;
                for (int64_t corner = 0; finite && corner < (int64_t(1) << n); ++corner) {
                  double weight = 1;
                  int64_t at = 0;
                  bool inside = true;
                  for (size_t d = 0; d < n && inside; ++d) {
                    const bool up = (corner >> (n - 1 - d)) & 1;
                    const int64_t i = base[d] + (up ? 1 : 0);
                    inside = i >= 0 && i < in_spatial[d];
                    weight *= up ? frac[d] : 1.0 - frac[d];
                    at = at * in_spatial[d] + i;
                  }
                  if (inside && weight != 0) v += weight * double(C(plane[at]));
                }
                col[(c * taps + k) * positions + o] = C(finite ? v * m : 0.0);
              }
            }
          }
        // out[b, oc, o] = B[oc] + sum over (c in oc's group, k) of W[oc, c, k] * samples[c][k][o].
        for (int64_t oc = 0; oc < out_channels; ++oc) {
          const int64_t grp = oc / out_per_group;
          const C bias = has_bias ? C(ctx.input(3).data<T>()[oc]) : C(0);
          std::vector<C> acc(size_t(positions), bias);
          for (int64_t ci = 0; ci < in_per_group; ++ci)
            for (int64_t k = 0; k < taps; ++k) {
              const C wv = C(wd[(oc * in_per_group + ci) * taps + k]);
              const C* src = col + ((grp * in_per_group + ci) * taps + k) * positions;
              for (int64_t o = 0; o < positions; ++o) acc[size_t(o)] += wv * src[o];
            }
          T* dst = yd + (b * out_channels + oc) * positions;
          for (int64_t o = 0; o < positions; ++o) dst[o] = static_cast<T>(acc[size_t(o)]);
        }
      }
      return Status::Ok();
    });
  }

 private:
  int64_t group_ = 1, offset_group_ = 1;
  std::vector<int64_t> kernel_shape_, dilations_, pads_, strides_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "DeformConv", 22, kLatestOpset, DeformConvKernel);

}  // namespace onyx
