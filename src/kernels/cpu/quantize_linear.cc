// QuantizeLinear: y = saturate(round_half_even(x / y_scale) + y_zero_point), per tensor or
// (opset 13+) per slice along `axis`. The output type is y_zero_point's, else the output_dtype
// attribute's (opset 21), else uint8. The 'saturate' attribute only concerns float8 outputs.
// Block quantisation (block_size) and the float8 / 4-bit types are not implemented.
#include <cmath>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/quantize.h"

namespace onyx {
namespace {

class QuantizeLinearKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    opset_ = info.opset();
    axis_ = info.attr_int("axis", 1);
    if (info.attr_int("block_size", 0) != 0) return not_implemented("blocked quantization (block_size)");
    output_dtype_ = info.attr_int("output_dtype", 0);
    if (output_dtype_ != 0 && !is_valid_data_type(int(output_dtype_)))
      return invalid_model("output_dtype ", output_dtype_, " is not a data type");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const bool has_zp = ctx.has_input(2);
    const Tensor& zp = ctx.input(2);
    ONYX_ASSIGN_OR_RETURN(QuantAxis q, resolve_quant_axis(x.shape(), scale, has_zp ? &zp : nullptr, axis_, opset_));
    if (!is_float_type(scale.dtype()))
      return invalid_argument("y_scale must be a float tensor, got ", scale.describe());
    DataType out_type = has_zp ? zp.dtype() : DataType::kUInt8;
    if (output_dtype_ != 0) {
      if (has_zp && DataType(output_dtype_) != zp.dtype())
        return invalid_argument("output_dtype ", data_type_name(DataType(output_dtype_)), " differs from y_zero_point ",
                                zp.describe());
      out_type = DataType(output_dtype_);
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, out_type, x.shape()));
    std::vector<float> scales(size_t(q.count)), zero_points(size_t(q.count), 0.0f);
    for (int64_t p = 0; p < q.count; ++p) {
      scales[size_t(p)] = float(scale.get_double(p));
      if (has_zp) zero_points[size_t(p)] = float(zp.get_double(p));
    }
    if (x.dtype() == DataType::kFloat && q.count == 1 && scales[0] != 0 &&
        quantize_float_span(x.data<float>(), x.numel(), scales[0], zero_points[0], out_type, y->raw_data()))
      return Status::Ok();
    return dispatch<uint8_t, int8_t, uint16_t, int16_t>(out_type, [&]<typename Q>() -> Status {
      return dispatch<ONYX_FLOAT_TYPES, int32_t>(x.dtype(), [&]<typename T>() -> Status {
        const T* in = x.data<T>();
        Q* out = y->data<Q>();
        q.for_each_run(x.numel(), [&](int64_t begin, int64_t end, int64_t p) {
          const float s = scales[size_t(p)], z = zero_points[size_t(p)];
          for (int64_t i = begin; i < end; ++i)
            out[i] = saturate_round<Q>(std::nearbyint(float(static_cast<compute_t<T>>(in[i])) / s) + z);
        });
        return Status::Ok();
      });
    });
  }

 private:
  int64_t opset_ = 13, axis_ = 1, output_dtype_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "QuantizeLinear", 10, kLatestOpset, QuantizeLinearKernel);

}  // namespace onyx
