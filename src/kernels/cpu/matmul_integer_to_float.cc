// com.microsoft MatMulIntegerToFloat (contrib op, since 1):
//   Y = ((A - a_zero_point) x (B - b_zero_point)) * a_scale * b_scale + bias
// numpy.matmul shapes. Inputs: A (int8 / uint8), B (int8 / uint8), a_scale (one value),
// b_scale (one value or [N]), a_zero_point (optional, one value of A's type), b_zero_point
// (optional, one value or [N] of B's type), bias (optional, [N]). Scales, bias and Y are
// float32 or float16 (Y takes a_scale's type). The published docs also allow a per-column
// a_scale, which has no meaning for the left operand; only one value is accepted.
// A constant 2-D B whose zero point is constant runs through oneDNN's int8 products
// (quantized_matmul_common.h); anything else through the exact reference.
#include <memory>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/matmul_common.h"
#include "kernels/quantized_matmul_common.h"

namespace onyx {
namespace {

class MatMulIntegerToFloatKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const bool has_zp = info.node().inputs.size() > 5 && !info.node().inputs[5].empty();
    weights_ = QuantizedWeights::make(info.constant_input(1), has_zp, has_zp ? info.constant_input(5) : nullptr);
    return Status::Ok();
  }

  // A packed B is never read again: its shape alone plans every run.
  std::vector<int> released_constant_inputs() const override { return weights_ ? std::vector<int>{1} : std::vector<int>{}; }

  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    auto is_int8 = [](const Tensor& t) { return t.dtype() == DataType::kInt8 || t.dtype() == DataType::kUInt8; };
    if (!is_int8(a) || !is_int8(b))
      return invalid_argument("MatMulIntegerToFloat: A and B must be int8 or uint8, got ", a.describe(), " and ",
                              b.describe());
    const Tensor& a_scale_t = ctx.input(2);
    ONYX_ASSIGN_OR_RETURN(float a_scale, scalar_float(a_scale_t, "a_scale"));
    const Tensor& a_zp = ctx.input(4);
    if (a_zp.defined() && (a_zp.numel() != 1 || a_zp.dtype() != a.dtype()))
      return invalid_argument("MatMulIntegerToFloat: a_zero_point must be one value of A's type, got ", a_zp.describe());
    const Tensor& b_zp = ctx.input(5);
    ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, plan_matmul(a.shape(), b.shape()));
    ONYX_ASSIGN_OR_RETURN(std::vector<float> scale, column_scales(a_scale, ctx.input(3), plan.n));
    ONYX_ASSIGN_OR_RETURN(std::vector<float> bias, bias_floats(ctx.has_input(6) ? &ctx.input(6) : nullptr, plan.n));
    const DataType out_type = a_scale_t.dtype();
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, out_type, plan.out));
    const float* bias_data = bias.empty() ? nullptr : bias.data();
    if (weights_ && b.rank() == 2 && plan.k == weights_->k() && plan.n == weights_->n()) {
      const int32_t zp = !a_zp.defined() ? 0
                         : a.dtype() == DataType::kUInt8 ? int32_t(a_zp.data<uint8_t>()[0])
                                                         : int32_t(a_zp.data<int8_t>()[0]);
      const int64_t rows = plan.k > 0 ? a.numel() / plan.k : 0;
      return weights_->multiply(a.raw_data(), a.dtype() == DataType::kUInt8, rows, zp, scale, bias_data, *y);
    }
    return quantized_matmul_reference(a, a_zp, b, b_zp, scale, bias_data, *y);
  }

 private:
  std::unique_ptr<QuantizedWeights> weights_;  // B packed, when constant and representable
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "MatMulIntegerToFloat", 1, kLatestOpset, MatMulIntegerToFloatKernel);

}  // namespace onyx
