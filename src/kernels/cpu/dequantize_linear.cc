// DequantizeLinear: y = (x - x_zero_point) * x_scale, per tensor or (opset 13+) per slice
// along `axis`. y has x_scale's type. The float8 / 4-bit input types are not implemented.
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/quantize.h"

namespace onyx {
namespace {

class DequantizeLinearKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    opset_ = info.opset();
    axis_ = info.attr_int("axis", 1);
    if (info.attr_int("block_size", 0) != 0) return not_implemented("blocked quantization (block_size)");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const bool has_zp = ctx.has_input(2);
    const Tensor& zp = ctx.input(2);
    ONYX_ASSIGN_OR_RETURN(QuantAxis q, resolve_quant_axis(x.shape(), scale, has_zp ? &zp : nullptr, axis_, opset_));
    if (has_zp && zp.dtype() != x.dtype())
      return invalid_argument("x_zero_point ", zp.describe(), " must have the type of x ", x.describe());
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, scale.dtype(), x.shape()));
    return dispatch<ONYX_FLOAT_TYPES>(scale.dtype(), [&]<typename F>() -> Status {
      return dispatch<uint8_t, int8_t, uint16_t, int16_t, int32_t>(x.dtype(), [&]<typename Q>() -> Status {
        const Q* in = x.data<Q>();
        const F* sp = scale.data<F>();
        const Q* zpp = has_zp ? zp.data<Q>() : nullptr;
        F* out = y->data<F>();
        using CF = compute_t<F>;
        q.for_each_run(x.numel(), [&](int64_t begin, int64_t end, int64_t p) {
          const int64_t z = zpp ? int64_t(zpp[p]) : 0;
          const CF s = static_cast<CF>(sp[p]);
          for (int64_t i = begin; i < end; ++i) out[i] = static_cast<F>(static_cast<CF>(int64_t(in[i]) - z) * s);
        });
        return Status::Ok();
      });
    });
  }

 private:
  int64_t opset_ = 13, axis_ = 1;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "DequantizeLinear", 10, kLatestOpset, DequantizeLinearKernel);

}  // namespace onyx
