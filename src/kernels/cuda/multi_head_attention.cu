// com.microsoft MultiHeadAttention on CUDA, the separate Q/K/V form the attention fusion emits,
// float32 and float16 (float32 scores, softmax and sums):
//   query [B, S, D], key [B, L, D], value [B, L, Dv]; bias [D + D + Dv] (optional, added to
//   query, key and value); attention_bias (optional, additive, numpy-broadcast to [B, N, S, L]);
//   no key_padding_mask and no past/present (refused at prepare). Batch dims of 1 broadcast, and
//   a one-row query against a bias of S rows gives S rows, as on the CPU.
//   num_heads N, scale (default 1/sqrt(D/N)), unidirectional (query row s sees keys
//   l <= s + L - S; a row that sees none weighs every key alike, as the CPU kernel does).
// Per batch item: one cuBLAS strided-batched product over the heads for the scores (heads are
// column blocks of the rows, so no transposes are made), one block per score row for the bias,
// mask and softmax, and one strided-batched product writing each head's block of the output.
#include <cmath>

#include "kernels/broadcast.h"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_kernel.h"
#include "kernels/multi_head_attention_common.h"

namespace onyx {
namespace {

// dst[i] = src[i] + bias[i % cols].
template <typename T>
__global__ void add_columns(const T* src, const T* bias, T* dst, int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = T(float(src[i]) + float(bias[i % cols]));
}

// One block per row r of the probabilities [N, S, L] of batch item b, from the scores
// [N, q_seq, L] (q_seq is S, or 1 for a query row shared by every row): adds the attention bias
// (strides over [B, N, S, L], 0 where broadcast), masks the keys a causal row cannot see and
// writes softmax(row) to `probs` (may alias `scores` when T is float and q_seq == S).
template <typename T>
__global__ void softmax_rows(const float* scores, T* probs, const T* attn_bias, int64_t b, int64_t heads,
                             int64_t seq, int64_t q_seq, int64_t len, bool causal, int64_t sb0, int64_t sb1,
                             int64_t sb2, int64_t sb3) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < heads * seq; r += gridDim.x) {
    const int64_t n = r / seq, s = r % seq;
    const float* row = scores + (n * q_seq + (q_seq == seq ? s : 0)) * len;
    T* out = probs + r * len;
    int64_t visible = len;
    if (causal) {
      const int64_t last = s + len - seq + 1;
      visible = last < 0 ? 0 : last > len ? len : last;
    }
    if (visible == 0) {
      for (int64_t l = threadIdx.x; l < len; l += blockDim.x) out[l] = T(1.f / float(len));
      continue;
    }
    const T* br = attn_bias ? attn_bias + b * sb0 + n * sb1 + s * sb2 : nullptr;
    auto value = [&](int64_t l) { return row[l] + (br ? float(br[l * sb3]) : 0.f); };
    float m = -INFINITY;
    for (int64_t l = threadIdx.x; l < visible; l += blockDim.x) m = fmaxf(m, value(l));
    m = cuda_reduce::block_reduce<true>(m, scratch);
    float sum = 0.f;
    for (int64_t l = threadIdx.x; l < visible; l += blockDim.x) sum += expf(value(l) - m);
    sum = cuda_reduce::block_reduce<false>(sum, scratch);
    const float inv = 1.f / sum;
    // Every thread has read its values of `row` before the reductions' barriers, so writing
    // over it (probs aliasing scores) is safe from here.
    for (int64_t l = threadIdx.x; l < len; l += blockDim.x) out[l] = T(l < visible ? expf(value(l) - m) * inv : 0.f);
  }
}

std::string refuses(const KernelQuery& q) {
  auto given = [&](const std::vector<std::string>& names, size_t i) { return i < names.size() && !names[i].empty(); };
  if (given(q.node.inputs, 4)) return "no key_padding_mask";
  if (given(q.node.inputs, 6) || given(q.node.inputs, 7)) return "no past key/value";
  if (given(q.node.outputs, 1) || given(q.node.outputs, 2)) return "no present key/value outputs";
  return refuse_unless(q, {DataType::kFloat, DataType::kFloat16}, {0, 1, 2, 3, 5});
}

class CudaMultiHeadAttention final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(attrs_, read_multi_head_attention(info, "CUDA MultiHeadAttention"));
    heads_ = attrs_.heads;
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const Tensor* bias = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* attn_bias = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    ONYX_RETURN_IF_ERROR(expect_float_or_half(q, "MultiHeadAttention", 0));
    for (const Tensor* t : {&k, &v, bias, attn_bias})
      if (t && t->dtype() != q.dtype())
        return invalid_argument("MultiHeadAttention: ", t->describe(), " does not have the query's type ",
                                data_type_name(q.dtype()));
    ONYX_ASSIGN_OR_RETURN(const MultiHeadAttentionDims dims, multi_head_attention_dims(q, k, v, bias, attrs_));
    const int64_t d = dims.d, len = dims.len, dv = dims.dv, q_seq = q.dim(1);
    // Batch and query rows broadcast as the unfused MatMul and Add would (the CPU kernel's rule).
    Shape bias_shape = attn_bias ? attn_bias->shape() : Shape{};
    if (bias_shape.size() > 4)
      return invalid_argument("MultiHeadAttention: attention_bias ", attn_bias->describe(), " has rank above 4");
    bias_shape.insert(bias_shape.begin(), 4 - bias_shape.size(), 1);
    auto batch_r = broadcast_shapes({{q.dim(0)}, {k.dim(0)}, {v.dim(0)}, {bias_shape[0]}});
    auto seq_r = broadcast_shapes({{q_seq}, {bias_shape[2]}});
    if (!batch_r.ok() || !seq_r.ok() || (bias_shape[1] != 1 && bias_shape[1] != heads_) ||
        (bias_shape[3] != 1 && bias_shape[3] != len))
      return invalid_argument("MultiHeadAttention: attention_bias ", attn_bias ? attn_bias->describe() : std::string("-"),
                              ", query ", q.describe(), ", key ", k.describe(), " and value ", v.describe(),
                              " do not broadcast to [batch, ", heads_, ", sequence, ", len, "]");
    const int64_t batch = (*batch_r)[0], seq = (*seq_r)[0];
    const std::vector<int64_t> bstride = broadcast_strides(bias_shape, {batch, heads_, seq, len});
    auto batch_of = [&](const Tensor& t, int64_t b) { return t.dim(0) == 1 ? 0 : b; };
    const int64_t h = dims.head, hv = dims.head_v;
    if (seq > INT32_MAX || len > INT32_MAX || d > INT32_MAX || dv > INT32_MAX)
      return not_implemented("CUDA MultiHeadAttention: dims past 2^31");
    const float scale = dims.scale;
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, q.dtype(), {batch, seq, dv}));
    if (y->numel() == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());

    // The bias, when given, goes into one copy of each of query, key and value.
    const char* qp = static_cast<const char*>(q.raw_data());
    const char* kp = static_cast<const char*>(k.raw_data());
    const char* vp = static_cast<const char*>(v.raw_data());
    const size_t item = q.itemsize();
    Tensor q_biased, k_biased, v_biased;
    if (bias) {
      ONYX_ASSIGN_OR_RETURN(q_biased, ctx.allocate_scratch(q.dtype(), q.shape()));
      ONYX_ASSIGN_OR_RETURN(k_biased, ctx.allocate_scratch(q.dtype(), k.shape()));
      ONYX_ASSIGN_OR_RETURN(v_biased, ctx.allocate_scratch(q.dtype(), v.shape()));
      const char* bp = static_cast<const char*>(bias->raw_data());
      ONYX_RETURN_IF_ERROR(add_bias(q, bp, q_biased, d));
      ONYX_RETURN_IF_ERROR(add_bias(k, bp + size_t(d) * item, k_biased, d));
      ONYX_RETURN_IF_ERROR(add_bias(v, bp + size_t(2 * d) * item, v_biased, dv));
      qp = static_cast<const char*>(q_biased.raw_data());
      kp = static_cast<const char*>(k_biased.raw_data());
      vp = static_cast<const char*>(v_biased.raw_data());
    }
    // Scores of one batch item in float32; float16 probabilities beside them.
    const bool half = q.dtype() == DataType::kFloat16;
    ONYX_ASSIGN_OR_RETURN(Tensor scores, ctx.allocate_scratch(DataType::kFloat, {heads_, q_seq, len}));
    Tensor probs = scores;
    if (half || q_seq != seq) {
      ONYX_ASSIGN_OR_RETURN(probs, ctx.allocate_scratch(q.dtype(), {heads_, seq, len}));
    }
    const cudaDataType_t type = half ? CUDA_R_16F : CUDA_R_32F;
    const float zero = 0.f, one = 1.f;
    const unsigned rows_grid = unsigned(std::min<int64_t>(heads_ * seq, 65535 * 16));
    const int threads = len >= 512 ? 256 : 128;
    auto lock = cuda().lock_blas();
    for (int64_t b = 0; b < batch; ++b) {
      const char* qb = qp + size_t(batch_of(q, b) * q_seq * d) * item;
      const char* kb = kp + size_t(batch_of(k, b) * len * d) * item;
      const char* vb = vp + size_t(batch_of(v, b) * len * dv) * item;
      char* yb = static_cast<char*>(y->raw_data()) + size_t(b * seq * dv) * item;
      // Column-major, per head n: scores_n^T [L, S] = K_n [L, h] Q_n^T [h, S]. Row-major K_n
      // read column-major is K_n^T (ld D), hence op T; Q_n likewise gives Q_n^T (ld D).
      ONYX_CUBLAS_RETURN_IF_ERROR(cublasGemmStridedBatchedEx(
          cuda().cublas(), CUBLAS_OP_T, CUBLAS_OP_N, int(len), int(q_seq), int(h), &scale, kb, type, int(d), h, qb,
          type, int(d), h, &zero, scores.raw_data(), CUDA_R_32F, int(len), q_seq * len, int(heads_), CUBLAS_COMPUTE_32F,
          CUBLAS_GEMM_DEFAULT));
      if (half) {
        softmax_rows<<<rows_grid, threads, 0, stream()>>>(
            scores.data<float>(), static_cast<__half*>(probs.raw_data()),
            attn_bias ? static_cast<const __half*>(attn_bias->raw_data()) : nullptr, b, heads_, seq, q_seq, len, attrs_.causal,
            bstride[0], bstride[1], bstride[2], bstride[3]);
      } else {
        softmax_rows<<<rows_grid, threads, 0, stream()>>>(scores.data<float>(), probs.data<float>(),
                                                          attn_bias ? attn_bias->data<float>() : nullptr, b, heads_,
                                                          seq, q_seq, len, attrs_.causal, bstride[0], bstride[1], bstride[2],
                                                          bstride[3]);
      }
      ONYX_RETURN_IF_ERROR(check_launch("MultiHeadAttention (softmax)"));
      // Per head: out_n^T [hv, S] = V_n^T [hv, L] P_n^T [L, S], written into rows h*n.. of the
      // column-major view of the output item (ld Dv).
      ONYX_CUBLAS_RETURN_IF_ERROR(cublasGemmStridedBatchedEx(
          cuda().cublas(), CUBLAS_OP_N, CUBLAS_OP_N, int(hv), int(seq), int(len), &one, vb, type, int(dv), hv,
          probs.raw_data(), type, int(len), seq * len, &zero, yb, type, int(dv), hv, int(heads_), CUBLAS_COMPUTE_32F,
          CUBLAS_GEMM_DEFAULT));
    }
    return Status::Ok();
  }

 private:
  Status add_bias(const Tensor& x, const char* bias, Tensor& out, int64_t cols) const {
    const int64_t n = x.numel();
    if (n == 0) return Status::Ok();
    if (x.dtype() == DataType::kFloat)
      add_columns<<<grid_for(n), 256, 0, stream()>>>(x.data<float>(), reinterpret_cast<const float*>(bias),
                                                     out.data<float>(), n, cols);
    else
      add_columns<<<grid_for(n), 256, 0, stream()>>>(static_cast<const __half*>(x.raw_data()),
                                                     reinterpret_cast<const __half*>(bias),
                                                     static_cast<__half*>(out.raw_data()), n, cols);
    return check_launch("MultiHeadAttention (bias)");
  }

  AttentionAttributes attrs_;
  int64_t heads_ = 0;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "com.microsoft", "MultiHeadAttention", 1, kLatestOpset, CudaMultiHeadAttention,
                              refuses, {});

}  // namespace onyx
