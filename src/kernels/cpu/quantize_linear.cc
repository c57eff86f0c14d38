// QuantizeLinear: y = saturate(round_half_even(x / y_scale) + y_zero_point), per tensor,
// (opset 13+) per slice along `axis`, or (opset 21+) per block of `block_size` elements along
// `axis`. The output type is y_zero_point's, else the output_dtype attribute's (opset 21),
// else uint8: the 8- and 16-bit integers, int4/uint4/int2/uint2 (saturated to their range),
// the float8 formats (x / y_scale + y_zero_point rounded to nearest even; `saturate` as in
// Cast) and float4e2m1. The division is in float32 (double for a double scale).
#include <cmath>
#include <vector>

#include "core/narrow_types.h"

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
    block_size_ = info.attr_int("block_size", 0);
    if (block_size_ < 0) return invalid_model("block_size ", block_size_, " must not be negative");
    saturate_ = info.attr_int("saturate", 1) != 0;
    output_dtype_ = info.attr_int("output_dtype", 0);
    if (output_dtype_ != 0 && !is_valid_data_type(int(output_dtype_)))
      return invalid_model("output_dtype ", output_dtype_, " is not a data type");
    return Status::Ok();
  }

  // Any granularity, any output type, one element at a time (the narrow types and blocks).
  Status compute_generic(const Tensor& x, const Tensor& scale, const Tensor* zp, const QuantIndex& qi,
                         Tensor& y) const {
    const DataType out = y.dtype();
    const bool narrow_float = is_narrow_float_type(out), narrow_int = is_narrow_int_type(out);
    if (!narrow_float && !narrow_int && out != DataType::kUInt8 && out != DataType::kInt8 &&
        out != DataType::kUInt16 && out != DataType::kInt16)
      return not_implemented("QuantizeLinear to ", data_type_name(out));
    if (!is_float_type(x.dtype()) && x.dtype() != DataType::kInt32)
      return not_implemented("QuantizeLinear of ", data_type_name(x.dtype()));
    // The integer targets' ranges, for the narrow ones.
    const int64_t lo = out == DataType::kInt4 ? -8 : out == DataType::kInt2 ? -2 : 0;
    const int64_t hi = out == DataType::kInt4 ? 7 : out == DataType::kUInt4 ? 15 : out == DataType::kInt2 ? 1 : 3;
    const bool in_double = scale.dtype() == DataType::kDouble;
    // x[i] / scale and the zero point that apply to element i
    auto scaled = [&](int64_t i, double* z) {
      const int64_t p = qi(i);
      *z = zp ? zp->get_double(p) : 0.0;
      return in_double ? x.get_double(i) / scale.get_double(p)
                       : double(float(x.get_double(i)) / float(scale.get_double(p)));
    };
    void* dst = y.raw_data();
    double z = 0;
    if (narrow_float) {
      for (int64_t i = 0; i < x.numel(); ++i) {
        const double v = scaled(i, &z);
        set_narrow_code(dst, out, i, float_to_narrow_float(out, float_rounded_to_odd(v + z), saturate_));
      }
      return Status::Ok();
    }
    if (narrow_int) {
      for (int64_t i = 0; i < x.numel(); ++i) {
        const double r = std::nearbyint(scaled(i, &z)) + z;
        const int64_t q = std::isnan(r) ? 0 : r <= double(lo) ? lo : r >= double(hi) ? hi : int64_t(r);
        set_narrow_code(dst, out, i, narrow_int_code(out, q));
      }
      return Status::Ok();
    }
    return dispatch<uint8_t, int8_t, uint16_t, int16_t>(out, [&]<typename Q>() -> Status {
      Q* q = y.data<Q>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        const double v = scaled(i, &z);
        q[i] = saturate_round<Q>(std::nearbyint(v) + z);
      }
      return Status::Ok();
    });
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const bool has_zp = ctx.has_input(2);
    const Tensor& zp = ctx.input(2);
    if (!is_float_type(scale.dtype()))
      return invalid_argument("y_scale must be a float tensor, got ", scale.describe());
    DataType out_type = has_zp ? zp.dtype() : DataType::kUInt8;
    if (output_dtype_ != 0) {
      if (has_zp && DataType(output_dtype_) != zp.dtype())
        return invalid_argument("output_dtype ", data_type_name(DataType(output_dtype_)), " differs from y_zero_point ",
                                zp.describe());
      out_type = DataType(output_dtype_);
    }
    if (block_size_ > 0 || is_narrow_type(out_type)) {
      ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, out_type, x.shape()));  // zeroed: packed bytes
      ONYX_ASSIGN_OR_RETURN(QuantIndex qi, resolve_quant_index(x.shape(), scale, has_zp ? &zp : nullptr, axis_,
                                                               block_size_, opset_));
      return compute_generic(x, scale, has_zp ? &zp : nullptr, qi, *y);
    }
    ONYX_ASSIGN_OR_RETURN(QuantAxis q, resolve_quant_axis(x.shape(), scale, has_zp ? &zp : nullptr, axis_, opset_));
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
  int64_t opset_ = 13, axis_ = 1, output_dtype_ = 0, block_size_ = 0;
  bool saturate_ = true;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "QuantizeLinear", 10, kLatestOpset, QuantizeLinearKernel);

}  // namespace onyx
