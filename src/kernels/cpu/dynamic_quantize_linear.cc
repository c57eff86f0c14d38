// DynamicQuantizeLinear: quantises float x to uint8 with a scale and zero point computed from
// its range: x_min = min(0, min(x)), x_max = max(0, max(x)), y_scale = (x_max - x_min) / 255,
// y_zero_point = saturate(round(-x_min / y_scale)), y = saturate(round(x / y_scale) + y_zero_point).
// An all-zero (or empty) x gives scale 0, zero point 0 and y 0.
#include <algorithm>
#include <cmath>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/quantize.h"

namespace onyx {
namespace {

class DynamicQuantizeLinearKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kFloat) return not_implemented("no kernel for element type ", data_type_name(x.dtype()));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, DataType::kUInt8, x.shape()));
    ONYX_ASSIGN_OR_RETURN(Tensor* y_scale, ctx.allocate_output(1, DataType::kFloat, {}));
    ONYX_ASSIGN_OR_RETURN(Tensor* y_zp, ctx.allocate_output(2, DataType::kUInt8, {}));
    const float* in = x.data<float>();
    float lo = 0, hi = 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      if (std::isnan(in[i])) return invalid_argument("x contains NaN");
      lo = std::min(lo, in[i]);
      hi = std::max(hi, in[i]);
    }
    const float scale = (hi - lo) / 255.0f;
    const uint8_t zp = scale > 0 ? saturate_round<uint8_t>(-lo / scale) : uint8_t(0);
    *y_scale->data<float>() = scale;
    *y_zp->data<uint8_t>() = zp;
    uint8_t* out = y->data<uint8_t>();
    for (int64_t i = 0; i < x.numel(); ++i)
      out[i] = scale > 0 ? saturate_round<uint8_t>(std::nearbyint(in[i] / scale) + float(zp)) : uint8_t(0);
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "DynamicQuantizeLinear", 11, kLatestOpset, DynamicQuantizeLinearKernel);

}  // namespace onyx
