// DequantizeLinear: y = (x - x_zero_point) * x_scale, per tensor, (opset 13+) per slice
// along `axis` or (opset 21+) per block of `block_size` elements along `axis`. y has
// x_scale's type, or output_dtype's (opset 23+). x: the 8-, 16- and 32-bit integers, int4 /
// uint4 / int2 / uint2, the float8 formats and float4e2m1 (their exact values).
#include "core/narrow_types.h"
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
    block_size_ = info.attr_int("block_size", 0);
    if (block_size_ < 0) return invalid_model("block_size ", block_size_, " must not be negative");
    output_dtype_ = info.attr_int("output_dtype", 0);
    if (output_dtype_ != 0 && !(is_valid_data_type(int(output_dtype_)) && is_float_type(DataType(output_dtype_))))
      return invalid_model("output_dtype ", output_dtype_, " is not a float type");
    return Status::Ok();
  }

  // Any granularity and input type, one element at a time (the narrow types and blocks).
  Status compute_generic(const Tensor& x, const Tensor& scale, const Tensor* zp, const QuantIndex& qi,
                         Tensor& y) const {
    if (!is_narrow_type(x.dtype()) && !is_integer_type(x.dtype()))
      return not_implemented("DequantizeLinear of ", data_type_name(x.dtype()));
    return dispatch<ONYX_FLOAT_TYPES>(y.dtype(), [&]<typename F>() -> Status {
      using CF = compute_t<F>;
      F* out = y.data<F>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t p = qi(i);
        const CF z = zp ? CF(zp->get_double(p)) : CF(0);
        out[i] = static_cast<F>((CF(x.get_double(i)) - z) * CF(scale.get_double(p)));
      }
      return Status::Ok();
    });
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const bool has_zp = ctx.has_input(2);
    const Tensor& zp = ctx.input(2);
    if (has_zp && zp.dtype() != x.dtype())
      return invalid_argument("x_zero_point ", zp.describe(), " must have the type of x ", x.describe());
    if (!is_float_type(scale.dtype())) return invalid_argument("x_scale must be a float tensor, got ", scale.describe());
    const DataType out_type = output_dtype_ != 0 ? DataType(output_dtype_) : scale.dtype();
    if (block_size_ > 0 || is_narrow_type(x.dtype()) || out_type != scale.dtype()) {
      ONYX_ASSIGN_OR_RETURN(QuantIndex qi, resolve_quant_index(x.shape(), scale, has_zp ? &zp : nullptr, axis_,
                                                               block_size_, opset_));
      ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, out_type, x.shape()));
      return compute_generic(x, scale, has_zp ? &zp : nullptr, qi, *y);
    }
    ONYX_ASSIGN_OR_RETURN(QuantAxis q, resolve_quant_axis(x.shape(), scale, has_zp ? &zp : nullptr, axis_, opset_));
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
  int64_t opset_ = 13, axis_ = 1, block_size_ = 0, output_dtype_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "DequantizeLinear", 10, kLatestOpset, DequantizeLinearKernel);

}  // namespace onyx
