// QLinearConv: quantised Conv. With acc = conv(x - x_zero_point, w - w_zero_point) + B (int32,
// optional, per output channel), y = saturate(round_half_even(acc * x_scale * w_scale[m] /
// y_scale) + y_zero_point). w_scale / w_zero_point are per tensor or per output channel; the
// rest per tensor. The output type is y_zero_point's.
#include <cmath>
#include <vector>

#include "kernels/conv_common.h"
#include "kernels/conv_integer_common.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/quantize.h"

namespace onyx {
namespace {

class QLinearConvKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return parse_conv_attrs(info, &attrs_, &group_); }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(3);
    const Tensor& y_zp = ctx.input(7);
    if (w.rank() < 1) return invalid_argument("w must have rank 3 or more, got ", w.describe());
    const int64_t maps = w.dim(0);
    auto scalar_float = [&](int i, const char* name, int64_t per) -> Result<std::vector<float>> {
      const Tensor& s = ctx.input(i);
      if (!s.defined() || !is_float_type(s.dtype()) ||
          !(s.numel() == 1 || (per > 1 && s.rank() == 1 && s.dim(0) == per)))
        return invalid_argument(name, " must be a float scalar", per > 1 ? " or hold one value per output channel" : "",
                                ", got ", s.defined() ? s.describe() : std::string("nothing"));
      std::vector<float> v(size_t(s.numel()));
      for (int64_t k = 0; k < s.numel(); ++k) v[size_t(k)] = float(s.get_double(k));
      return v;
    };
    ONYX_ASSIGN_OR_RETURN(std::vector<float> x_scale, scalar_float(1, "x_scale", 1));
    ONYX_ASSIGN_OR_RETURN(std::vector<float> w_scale, scalar_float(4, "w_scale", maps));
    ONYX_ASSIGN_OR_RETURN(std::vector<float> y_scale, scalar_float(6, "y_scale", 1));
    if (!y_zp.defined() || y_zp.numel() != 1)
      return invalid_argument("y_zero_point must be a scalar, got ", y_zp.defined() ? y_zp.describe() : "nothing");
    const bool has_bias = ctx.has_input(8);
    const Tensor& bias = ctx.input(8);
    if (has_bias && (bias.dtype() != DataType::kInt32 || bias.rank() != 1 || bias.dim(0) != maps))
      return invalid_argument("B must be int32 of shape [", maps, "], got ", bias.describe());
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
        const float multiplier = x_scale[0] * w_scale[w_scale.size() == 1 ? 0 : size_t(m)] / y_scale[0];
        out[i] = saturate_round<Q>(std::nearbyint(float(static_cast<int32_t>(acc)) * multiplier) + zp);
      }
      return Status::Ok();
    });
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "QLinearConv", 10, kLatestOpset, QLinearConvKernel);

}  // namespace onyx
