// com.microsoft QAttention (contrib op, since 1): Attention with a quantised projection.
//   inputs:  input [B, S, Hin] (uint8 or int8); weight [Hin, 3 * hidden] (int8 or uint8);
//            bias [3 * hidden] (float32); input_scale (one value); weight_scale (one value or
//            [3 * hidden]); mask_index (optional, the forms Attention takes; ONNX Runtime
//            documents [B]); input_zero_point (optional, one value); weight_zero_point
//            (optional, one value or [3 * hidden]); past (must be absent).
//   QKV = ((input - izp) x (weight - wzp[c])) * input_scale * weight_scale[c] + bias[c],
//   exact integer sums, then Attention's heads (packed_qkv_attention.h) with hq = hk = hv =
//   hidden. attributes: num_heads, unidirectional, scale, mask_filter_value as Attention's;
//   do_rotary, past_present_share_buffer and the present output refused by name.
// A constant weight whose difference from its constant zero point fits int8 multiplies through
// oneDNN's VNNI products (quantized_matmul_common.h); anything else through the exact reference.
#include <cmath>
#include <cstring>
#include <memory>

#include "kernels/kernel.h"
#include "kernels/multi_head_attention_common.h"
#include "kernels/packed_qkv_attention.h"
#include "kernels/quantized_matmul_common.h"

namespace onyx {
namespace {

class QAttentionKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(attrs_, read_attention_attributes(info, "QAttention"));
    heads_ = attrs_.heads;
    causal_ = attrs_.causal;
    mask_filter_ = info.attr_float("mask_filter_value", -10000.f);
    if (info.attr_int("do_rotary", 0) != 0) return not_implemented("QAttention: do_rotary");
    if (info.attr_int("past_present_share_buffer", 0) != 0) return not_implemented("QAttention: past_present_share_buffer");
    if (info.has_input(8)) return not_implemented("QAttention: past state");
    for (int k = 1; k < info.num_outputs(); ++k)
      if (!info.node().outputs[size_t(k)].empty()) return not_implemented("QAttention: the present output");
    const bool has_zp = info.has_input(7);
    weights_ = QuantizedWeights::make(info.constant_input(1), has_zp, has_zp ? info.constant_input(7) : nullptr);
    return Status::Ok();
  }

  std::vector<int> released_constant_inputs() const override { return weights_ ? std::vector<int>{1} : std::vector<int>{}; }
  std::string implementation() const override {
    return weights_ ? "oneDNN int8 matmul (weights packed)" : "reference (integer GEMM)";
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor& bias = ctx.input(2);
    if ((x.dtype() != DataType::kUInt8 && x.dtype() != DataType::kInt8) ||
        (w.dtype() != DataType::kUInt8 && w.dtype() != DataType::kInt8))
      return invalid_argument("QAttention: input and weight must be uint8 or int8, got ", x.describe(), " and ",
                              w.describe());
    if (x.rank() != 3 || w.rank() != 2 || w.dim(0) != x.dim(2) || w.dim(1) % 3 != 0)
      return invalid_argument("QAttention: input ", x.describe(), " and weight ", w.describe(),
                              " must be [B, S, Hin] and [Hin, 3 * hidden]");
    const int64_t batch = x.dim(0), seq = x.dim(1), width = w.dim(1), hidden = width / 3;
    if (hidden % heads_ != 0) return invalid_argument("QAttention: num_heads ", heads_, " does not divide ", hidden);
    if (!bias.defined() || bias.dtype() != DataType::kFloat || bias.numel() != width)
      return invalid_argument("QAttention: bias must be float32 of ", width, " elements, got ",
                              bias.defined() ? bias.describe() : std::string("nothing"));
    ONYX_ASSIGN_OR_RETURN(float input_scale, scalar_float(ctx.input(3), "input_scale"));
    ONYX_ASSIGN_OR_RETURN(std::vector<float> col_scale, column_scales(input_scale, ctx.input(4), width));
    if (col_scale.size() == 1) col_scale.assign(size_t(width), col_scale[0]);
    int32_t izp = 0;
    if (ctx.has_input(6)) {
      const Tensor& z = ctx.input(6);
      if (z.dtype() != x.dtype() || z.numel() != 1)
        return invalid_argument("QAttention: input_zero_point must be one value of input's type, got ", z.describe());
      izp = int32_t(z.get_int64(0));
    }
    const Tensor* mask = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    ONYX_ASSIGN_OR_RETURN(AttentionMask mv, AttentionMask::read(mask, batch, seq, seq, "QAttention"));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, DataType::kFloat, {batch, seq, hidden}));
    if (y->numel() == 0) return Status::Ok();

    ONYX_ASSIGN_OR_RETURN(Tensor qkv, ctx.allocate_scratch(DataType::kFloat, {batch * seq, width}));
    if (weights_ && weights_->k() == x.dim(2) && weights_->n() == width) {
      ONYX_RETURN_IF_ERROR(weights_->multiply(x.raw_data(), x.dtype() == DataType::kUInt8, batch * seq, izp, col_scale,
                                              bias.data<float>(), qkv));
    } else {
      ONYX_ASSIGN_OR_RETURN(Tensor x2, Tensor::create(x.dtype(), {batch * seq, x.dim(2)}, nullptr, false));
      std::memcpy(x2.raw_data(), x.raw_data(), x.nbytes());
      const Tensor izp_t = ctx.has_input(6) ? ctx.input(6) : Tensor();
      ONYX_RETURN_IF_ERROR(quantized_matmul_reference(x2, izp_t, w, ctx.has_input(7) ? ctx.input(7) : Tensor(), col_scale,
                                                      bias.data<float>(), qkv));
    }
    const float scale = attrs_.scale_for(hidden / heads_);
    const PackedQkvAttention p{heads_, scale, mask_filter_, causal_};
    return run_packed_qkv_attention(ctx, head_products_, p, qkv.data<float>(), batch, seq, hidden, hidden, mv, nullptr,
                                    y->data<float>(), "QAttention");
  }

 private:
  std::unique_ptr<QuantizedWeights> weights_;
  onednn::HeadProducts head_products_;
  int64_t heads_ = 0;
  AttentionAttributes attrs_;
  bool causal_ = false;
  float mask_filter_ = -10000.f;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "QAttention", 1, kLatestOpset, QAttentionKernel);

}  // namespace onyx
