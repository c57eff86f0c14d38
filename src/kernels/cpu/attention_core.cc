// AttentionCore (ai.onyx.training, made by the training graph's attention fusion): per batch
// item and head n,
//   probs[b, n] = softmax(scale * Q_n K_n^T)   (rows over the L keys)
//   Y[b, :, n*Hv : (n+1)*Hv] = probs[b, n] V_n
// where Q_n, K_n and V_n are head n's columns of query [B, S, N*H], key [B, L, N*H] and value
// [B, L, N*Hv] (inputs 0-2), or of one packed input [B, S, 3*N*H] holding query | key | value
// in each row (attention_core_common.h). Output 1 keeps probs ([B, N, S, L]) for
// AttentionCoreGrad. The two products are oneDNN batched matmuls over strided views of the
// inputs (onednn_head_products.h), so no head is copied out and Y comes out with its heads side
// by side, as the unfused graph's Transpose and Reshape left them. float32.
#include <algorithm>

#include "core/parallel.h"
#include "kernels/attention_core_common.h"
#include "kernels/onednn_head_products.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

class AttentionCoreKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(attrs_, AttentionCoreAttributes::read(info, "AttentionCore"));
    if (info.num_inputs() != 1 && info.num_inputs() != 3)
      return invalid_model("AttentionCore takes query, key and value, or one packed input; got ", info.num_inputs(),
                           " inputs");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const int64_t heads = attrs_.heads;
    ONYX_ASSIGN_OR_RETURN(const AttentionCoreDims d,
                          attention_core_dims("AttentionCore", ctx, 0, ctx.num_inputs() == 1 ? 1 : 3, heads));
    // Every element is written below except where there is no key (then Y is zero, as the
    // empty product would leave it).
    ONYX_ASSIGN_OR_RETURN(Tensor * y, d.len == 0 ? ctx.allocate_output(0, DataType::kFloat, {d.batch, d.seq, d.dv})
                                                 : ctx.allocate_output_uninitialized(0, DataType::kFloat, {d.batch, d.seq, d.dv}));
    ONYX_ASSIGN_OR_RETURN(Tensor * probs,
                          ctx.allocate_output_uninitialized(1, DataType::kFloat, {d.batch, heads, d.seq, d.len}));
    if (probs->numel() == 0) return Status::Ok();
    const float* qp = ctx.input(0).data<float>() + d.q_off;
    const float* kp = (d.packed ? ctx.input(0) : ctx.input(1)).data<float>() + d.k_off;
    const float* vp = (d.packed ? ctx.input(0) : ctx.input(2)).data<float>() + d.v_off;
    float* yp = y->data<float>();
    float* pp = probs->data<float>();
    const int64_t block = heads * d.seq * d.len;
    for (int64_t b = 0; b < d.batch; ++b) {
      float* pb = pp + b * block;
      if (d.h == 0)  // empty heads: every score is 0
        std::fill(pb, pb + block, 0.f);
      else
        ONYX_RETURN_IF_ERROR(head_products_.scores(qp + b * d.q_batch, d.ldq, kp + b * d.k_batch, d.ldk, pb, heads,
                                                   d.seq, d.len, d.h, attrs_.scale));
      parallel_for(heads * d.seq, std::max<int64_t>(1, 16384 / d.len), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) vec::softmax_row(pb + r * d.len, pb + r * d.len, d.len);
      });
      if (d.hv == 0) continue;
      ONYX_RETURN_IF_ERROR(head_products_.context(pb, vp + b * d.v_batch, d.ldv, yp + b * d.seq * d.dv, d.dv, heads,
                                                  d.seq, d.len, d.hv));
    }
    return Status::Ok();
  }

 private:
  AttentionCoreAttributes attrs_;
  onednn::HeadProducts head_products_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "AttentionCore", 1, kLatestOpset, AttentionCoreKernel);

}  // namespace onyx
