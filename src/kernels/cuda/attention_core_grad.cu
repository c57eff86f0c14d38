// AttentionCoreGrad (ai.onyx.training) on CUDA, float32: the gradients of AttentionCore's inputs
// from dY [B, S, N*Hv], its inputs and its probs P [B, N, S, L]: inputs (dY, query, key, value,
// P) give outputs (dQ, dK, dV); inputs (dY, packed query | key | value, P) give one packed
// output with dQ | dK | dV side by side in each row. Per batch item and head, with G the
// gradient of the scaled scores:
//   dP = dY_n V_n^T;   G = scale * P * (dP - rowsum(dP * P))   (in place)
//   dQ_n = G K_n;   dK_n = G^T Q_n;   dV_n = P^T dY_n
// as cuBLAS products strided over the heads, reading and writing each head's columns in place.
#include "kernels/attention_core_common.h"
#include "kernels/cuda/cublas_product.h"
#include "kernels/cuda/softmax_rows.cuh"

namespace onyx {
namespace {

std::string refuses(const KernelQuery& q) { return refuse_unless(q, {DataType::kFloat}); }

class CudaAttentionCoreGrad final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(attributes_, AttentionCoreAttributes::read(info, "AttentionCoreGrad"));
    return check_attention_core_grad_inputs(info);
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const int64_t heads = attributes_.heads;
    const bool packed = ctx.num_inputs() == 3;
    ONYX_ASSIGN_OR_RETURN(AttentionCoreDims d,
                          attention_core_dims("AttentionCoreGrad", ctx, 1, packed ? 1 : 3, heads));
    ONYX_ASSIGN_OR_RETURN(const AttentionCoreGradTargets out, attention_core_grad_targets(ctx, d, heads, packed));
    float *dq = out.dq, *dk = out.dk, *dv = out.dv;
    const Tensor& dy = ctx.input(0);
    const Tensor& probs = ctx.input(packed ? 2 : 4);
    if (d.batch == 0 || d.seq == 0 || d.len == 0 || d.hv == 0) return Status::Ok();
    const float* qp = ctx.input(1).data<float>() + d.q_off;
    const float* kp = ctx.input(packed ? 1 : 2).data<float>() + d.k_off;
    const float* vp = ctx.input(packed ? 1 : 3).data<float>() + d.v_off;
    const float* pp = probs.data<float>();
    const float* dyp = dy.data<float>();
    const int64_t block = heads * d.seq * d.len;
    ONYX_ASSIGN_OR_RETURN(Tensor g, ctx.allocate_scratch(DataType::kFloat, {heads, d.seq, d.len}));
    float* gp = g.data<float>();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    auto lock = cuda().lock_blas();
    for (int64_t b = 0; b < d.batch; ++b) {
      const float* pb = pp + b * block;
      const float* dyb = dyp + b * d.seq * d.dv;
      // dV_n^T (Hv x L) = dY_n^T (Hv x S) P (S x L)
      ONYX_RETURN_IF_ERROR(cuda_product::gemm_strided_f32(cuda(), false, true, d.hv, d.len, d.seq, 1.f, dyb, d.dv,
                                                          d.hv, pb, d.len, d.seq * d.len, 0.f, dv + b * d.v_batch,
                                                          d.ldv, d.hv, heads));
      if (d.h == 0) continue;  // dQ and dK have no columns
      // dP^T (L x S) = V_n (L x Hv) dY_n^T (Hv x S), into G; then G = scale * P * (dP - rowsum(dP * P))
      ONYX_RETURN_IF_ERROR(cuda_product::gemm_strided_f32(cuda(), true, false, d.len, d.seq, d.hv, 1.f,
                                                          vp + b * d.v_batch, d.ldv, d.hv, dyb, d.dv, d.hv, 0.f, gp,
                                                          d.len, d.seq * d.len, heads));
      const int64_t rows = heads * d.seq;
      cuda_softmax::softmax_grad_rows<<<cuda_softmax::row_grid(rows), cuda_softmax::row_threads(d.len), 0,
                                        stream()>>>(gp, pb, gp, rows, d.len, attributes_.scale);
      ONYX_RETURN_IF_ERROR(check_launch("AttentionCoreGrad"));
      // dQ_n^T (H x S) = K_n^T (H x L) G^T (L x S)
      ONYX_RETURN_IF_ERROR(cuda_product::gemm_strided_f32(cuda(), false, false, d.h, d.seq, d.len, 1.f,
                                                          kp + b * d.k_batch, d.ldk, d.h, gp, d.len, d.seq * d.len,
                                                          0.f, dq + b * d.q_batch, d.ldq, d.h, heads));
      // dK_n^T (H x L) = Q_n^T (H x S) G (S x L)
      ONYX_RETURN_IF_ERROR(cuda_product::gemm_strided_f32(cuda(), false, true, d.h, d.len, d.seq, 1.f,
                                                          qp + b * d.q_batch, d.ldq, d.h, gp, d.len, d.seq * d.len,
                                                          0.f, dk + b * d.k_batch, d.ldk, d.h, heads));
    }
    return Status::Ok();
  }

 private:
  AttentionCoreAttributes attributes_;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "ai.onyx.training", "AttentionCoreGrad", 1, kLatestOpset, CudaAttentionCoreGrad,
                              refuses, {});

}  // namespace onyx
