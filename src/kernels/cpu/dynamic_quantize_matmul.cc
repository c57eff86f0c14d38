// com.microsoft DynamicQuantizeMatMul (contrib op, since 1): A (float32) is quantised per
// tensor to uint8 as DynamicQuantizeLinear does (range [min(0, min A), max(0, max A)] over 255
// steps, zero point rounded half to even), then
//   Y = ((q(A) - a_zero_point) x (B - b_zero_point)) * a_scale * b_scale + bias
// numpy.matmul shapes. Inputs: A, B (int8 / uint8), b_scale (one value or [N]), b_zero_point
// (optional, one value or [N] of B's type), bias (optional, [N]). Y is float32. An all-zero A
// gives scale 0, so Y = bias. A constant 2-D B whose zero point is constant runs through
// oneDNN's int8 products (quantized_matmul_common.h); anything else through the exact reference.
#include <memory>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/matmul_common.h"
#include "kernels/quantized_matmul_common.h"

namespace onyx {
namespace {

class DynamicQuantizeMatMulKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const bool has_zp = info.node().inputs.size() > 3 && !info.node().inputs[3].empty();
    weights_ = QuantizedWeights::make(info.constant_input(1), has_zp, has_zp ? info.constant_input(3) : nullptr);
    return Status::Ok();
  }

  // A packed B is never read again: its shape alone plans every run.
  std::vector<int> released_constant_inputs() const override { return weights_ ? std::vector<int>{1} : std::vector<int>{}; }

  std::string implementation() const override {
    return weights_ ? weights_->implementation() : "reference (integer GEMM)";
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != DataType::kFloat)
      return invalid_argument("DynamicQuantizeMatMul: A must be float32, got ", a.describe());
    if (b.dtype() != DataType::kInt8 && b.dtype() != DataType::kUInt8)
      return invalid_argument("DynamicQuantizeMatMul: B must be int8 or uint8, got ", b.describe());
    ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, plan_matmul(a.shape(), b.shape()));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, DataType::kFloat, plan.out));

    // A as uint8, with its scale and zero point.
    ONYX_ASSIGN_OR_RETURN(Tensor qa, Tensor::create(DataType::kUInt8, a.shape(), nullptr, /*zero_fill=*/false));
    uint8_t* q = qa.data<uint8_t>();
    float a_scale = 0;
    uint8_t zp = 0;
    ONYX_RETURN_IF_ERROR(quantize_dynamic_u8(a.data<float>(), a.numel(), q, &a_scale, &zp));

    ONYX_ASSIGN_OR_RETURN(std::vector<float> scale, column_scales(a_scale, ctx.input(2), plan.n));
    ONYX_ASSIGN_OR_RETURN(std::vector<float> bias, bias_floats(ctx.has_input(4) ? &ctx.input(4) : nullptr, plan.n));
    const float* bias_data = bias.empty() ? nullptr : bias.data();
    if (weights_ && b.rank() == 2 && plan.k == weights_->k() && plan.n == weights_->n()) {
      const int64_t rows = plan.k > 0 ? a.numel() / plan.k : 0;
      return weights_->multiply(q, true, rows, int32_t(zp), scale, bias_data, *y);
    }
    Tensor a_zp = Tensor::scalar<uint8_t>(zp);
    return quantized_matmul_reference(qa, a_zp, b, ctx.input(3), scale, bias_data, *y);
  }

 private:
  std::unique_ptr<QuantizedWeights> weights_;  // B packed, when constant and representable
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "DynamicQuantizeMatMul", 1, kLatestOpset, DynamicQuantizeMatMulKernel);

}  // namespace onyx
