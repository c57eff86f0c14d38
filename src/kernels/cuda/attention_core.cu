// AttentionCore (ai.onyx.training) on CUDA, float32: per batch item and head n,
//   probs[b, n] = softmax(scale * Q_n K_n^T)   (rows over the L keys)
//   Y[b, :, n*Hv : (n+1)*Hv] = probs[b, n] V_n
// with query, key and value separate or packed in one [B, S, 3*N*H] input
// (attention_core_common.h). Per batch item, two cuBLAS products strided over the heads read
// each head's columns in place (no copies) and write Y with its heads side by side; the softmax
// runs in place over probs (output 1, [B, N, S, L], kept for AttentionCoreGrad).
#include "kernels/attention_core_common.h"
#include "kernels/cuda/cublas_product.h"
#include "kernels/cuda/softmax_rows.cuh"

namespace onyx {
namespace {

std::string refuses(const KernelQuery& q) { return refuse_unless(q, {DataType::kFloat}); }

class CudaAttentionCore final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(attributes_, AttentionCoreAttributes::read(info, "AttentionCore"));
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const int64_t heads = attributes_.heads;
    ONYX_ASSIGN_OR_RETURN(AttentionCoreDims d,
                          attention_core_dims("AttentionCore", ctx, 0, ctx.num_inputs() == 1 ? 1 : 3, heads));
    const Shape y_shape{d.batch, d.seq, d.dv};
    ONYX_ASSIGN_OR_RETURN(Tensor * y, d.len == 0 ? ctx.allocate_output(0, DataType::kFloat, y_shape)
                                                 : ctx.allocate_output_uninitialized(0, DataType::kFloat, y_shape));
    ONYX_ASSIGN_OR_RETURN(Tensor * probs,
                          ctx.allocate_output_uninitialized(1, DataType::kFloat, {d.batch, heads, d.seq, d.len}));
    if (d.batch == 0 || d.seq == 0 || d.len == 0) return Status::Ok();
    const float* qp = ctx.input(0).data<float>() + d.q_off;
    const float* kp = (d.packed ? ctx.input(0) : ctx.input(1)).data<float>() + d.k_off;
    const float* vp = (d.packed ? ctx.input(0) : ctx.input(2)).data<float>() + d.v_off;
    float* pp = probs->data<float>();
    float* yp = y->data<float>();
    const int64_t block = heads * d.seq * d.len;
    ONYX_RETURN_IF_ERROR(cuda().activate());
    auto lock = cuda().lock_blas();
    if (d.h == 0) {  // empty heads: every score is 0
      ONYX_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(pp, 0, probs->nbytes(), stream()));
    } else {
      // probs^T (L x S, column-major) = K_n (L x H) Q_n^T (H x S), scaled.
      for (int64_t b = 0; b < d.batch; ++b)
        ONYX_RETURN_IF_ERROR(cuda_product::gemm_strided_f32(
            cuda(), true, false, d.len, d.seq, d.h, attributes_.scale, kp + b * d.k_batch, d.ldk, d.h,
            qp + b * d.q_batch, d.ldq, d.h, 0.f, pp + b * block, d.len, d.seq * d.len, heads));
    }
    const int64_t rows = d.batch * heads * d.seq;
    cuda_softmax::softmax_rows<<<cuda_softmax::row_grid(rows), cuda_softmax::row_threads(d.len), 0, stream()>>>(
        pp, pp, rows, d.len, 1);
    ONYX_RETURN_IF_ERROR(check_launch("AttentionCore"));
    if (d.hv == 0) return Status::Ok();
    // Y_n^T (Hv x S) = V_n^T (Hv x L) probs^T (L x S).
    for (int64_t b = 0; b < d.batch; ++b)
      ONYX_RETURN_IF_ERROR(cuda_product::gemm_strided_f32(
          cuda(), false, false, d.hv, d.seq, d.len, 1.f, vp + b * d.v_batch, d.ldv, d.hv, pp + b * block, d.len,
          d.seq * d.len, 0.f, yp + b * d.seq * d.dv, d.dv, d.hv, heads));
    return Status::Ok();
  }

 private:
  AttentionCoreAttributes attributes_;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "ai.onyx.training", "AttentionCore", 1, kLatestOpset, CudaAttentionCore, refuses,
                              {});

}  // namespace onyx
