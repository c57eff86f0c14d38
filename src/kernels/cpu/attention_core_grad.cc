// AttentionCoreGrad (ai.onyx.training): the gradients of AttentionCore's inputs from dY
// [B, S, N*Hv], AttentionCore's inputs and its probs P [B, N, S, L]: inputs (dY, query, key,
// value, P) give outputs (dQ, dK, dV); inputs (dY, packed query | key | value, P) give one
// packed output [B, S, 3*N*H] with dQ | dK | dV side by side in each row. Per batch item and
// head, with G the gradient of the scaled scores:
//   dP = dY_n V_n^T;   G = P * (dP - rowsum(dP * P)) * scale   (softmax's gradient, in place)
//   dQ_n = G K_n;   dK_n = G^T Q_n;   dV_n = P^T dY_n
// written into head n's columns of the outputs: four oneDNN batched matmuls over strided views
// per batch item. float32.
#include "core/parallel.h"
#include "kernels/attention_core_common.h"
#include "kernels/onednn_head_products.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

class AttentionCoreGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(attrs_, AttentionCoreAttributes::read(info, "AttentionCoreGrad"));
    return check_attention_core_grad_inputs(info);
  }

  Status compute(KernelContext& ctx) const override {
    const bool packed = ctx.num_inputs() == 3;
    const int64_t heads = attrs_.heads;
    ONYX_ASSIGN_OR_RETURN(const AttentionCoreDims d,
                          attention_core_dims("AttentionCoreGrad", ctx, 1, packed ? 1 : 3, heads));
    ONYX_ASSIGN_OR_RETURN(const AttentionCoreGradTargets out, attention_core_grad_targets(ctx, d, heads, packed));
    const Tensor& dy = ctx.input(0);
    const Tensor& probs = ctx.input(packed ? 2 : 4);
    const bool whole = out.whole;
    float *dq = out.dq, *dk = out.dk, *dv = out.dv;
    const float* qp = ctx.input(1).data<float>() + d.q_off;
    const float* kp = ctx.input(packed ? 1 : 2).data<float>() + d.k_off;
    const float* vp = ctx.input(packed ? 1 : 3).data<float>() + d.v_off;
    const int64_t block = heads * d.seq * d.len;
    if (!whole) {
      // Only dV can be non-zero here (P^T dY with empty heads of Q and K).
      if (d.batch > 0 && d.seq > 0 && d.len > 0 && d.hv > 0)
        for (int64_t b = 0; b < d.batch; ++b)
          ONYX_RETURN_IF_ERROR(head_products_.context_transposed(probs.data<float>() + b * block,
                                                                 dy.data<float>() + b * d.seq * d.dv, d.dv,
                                                                 dv + b * d.v_batch, d.ldv, heads, d.seq, d.len, d.hv));
      return Status::Ok();
    }
    ONYX_ASSIGN_OR_RETURN(Tensor g, ctx.allocate_scratch(DataType::kFloat, {heads, d.seq, d.len}));
    float* gp = g.data<float>();
    for (int64_t b = 0; b < d.batch; ++b) {
      const float* pb = probs.data<float>() + b * block;
      const float* dyb = dy.data<float>() + b * d.seq * d.dv;
      ONYX_RETURN_IF_ERROR(head_products_.scores(dyb, d.dv, vp + b * d.v_batch, d.ldv, gp, heads, d.seq, d.len, d.hv, 1.f));
      parallel_for(heads * d.seq, std::max<int64_t>(1, 16384 / d.len), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r)
          vec::softmax_grad_row(gp + r * d.len, pb + r * d.len, gp + r * d.len, d.len, attrs_.scale);
      });
      ONYX_RETURN_IF_ERROR(
          head_products_.context(gp, kp + b * d.k_batch, d.ldk, dq + b * d.q_batch, d.ldq, heads, d.seq, d.len, d.h));
      ONYX_RETURN_IF_ERROR(head_products_.context_transposed(gp, qp + b * d.q_batch, d.ldq, dk + b * d.k_batch, d.ldk,
                                                             heads, d.seq, d.len, d.h));
      ONYX_RETURN_IF_ERROR(head_products_.context_transposed(pb, dyb, d.dv, dv + b * d.v_batch, d.ldv, heads, d.seq,
                                                             d.len, d.hv));
    }
    return Status::Ok();
  }

 private:
  AttentionCoreAttributes attrs_;
  onednn::HeadProducts head_products_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "AttentionCoreGrad", 1, kLatestOpset, AttentionCoreGradKernel);

}  // namespace onyx
