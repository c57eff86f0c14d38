// com.microsoft SkipLayerNormalization on CUDA, float32 and float16 (float32 statistics):
// layer normalisation over the last dim H of S = input + skip + bias. skip has input's shape
// or its trailing dims (ONNX Runtime's forms), leading dims of 1 aside; gamma, beta (optional) and bias (optional) hold
// H values. Outputs: the normalised S; mean and inv_std_var (optional, float32, S's dims with
// the last as 1); S itself (optional, input_skip_bias_sum). One block per row; statistics in
// float32 from S unrounded.
#include <type_traits>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace {

template <typename T>
__global__ void skip_layer_norm_rows(const T* x, const T* skip, int64_t skip_n, const T* gamma, const T* beta,
                                     const T* bias, T* y, T* sum, float* mean_out, float* inv_out, int64_t rows,
                                     int64_t len, float epsilon) {
  // float32 rows keep S in the output (or the sum output) between passes; float16 rows would
  // round it there, so they recompute it from the inputs and take the statistics unrounded.
  constexpr bool keep_s = std::is_same_v<T, float>;
  __shared__ float scratch[32];
  T* s_row_base = sum ? sum : y;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = x + r * len;
    T* s_row = s_row_base + r * len;
    auto value = [&](int64_t j) {
      if constexpr (keep_s) return float(s_row[j]);
      return float(row[j]) + float(skip[(r * len + j) % skip_n]) + (bias ? float(bias[j]) : 0.f);
    };
    float s = 0.f;
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) {
      const float v = float(row[j]) + float(skip[(r * len + j) % skip_n]) + (bias ? float(bias[j]) : 0.f);
      if (keep_s || sum) s_row[j] = T(v);
      s += v;
    }
    const float mean = cuda_reduce::block_reduce<false>(s, scratch) / float(len);
    float q = 0.f;
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) {
      const float d = value(j) - mean;
      q += d * d;
    }
    const float inv = rsqrtf(cuda_reduce::block_reduce<false>(q, scratch) / float(len) + epsilon);
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x)
      y[r * len + j] = T((value(j) - mean) * inv * float(gamma[j]) + (beta ? float(beta[j]) : 0.f));
    if (threadIdx.x == 0) {
      if (mean_out) mean_out[r] = mean;
      if (inv_out) inv_out[r] = inv;
    }
  }
}

std::string refuses(const KernelQuery& q) { return refuse_unless(q, {DataType::kFloat, DataType::kFloat16}); }

class CudaSkipLayerNormalization final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    epsilon_ = info.attr_float("epsilon", 1e-12f);
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& skip = ctx.input(1);
    const Tensor& gamma = ctx.input(2);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(x, "SkipLayerNormalization", 0));
    if (x.rank() == 0) return invalid_argument("SkipLayerNormalization: the input must have rank 1 or more");
    const int64_t len = x.dim(x.rank() - 1);
    // skip's leading dims of 1 broadcast like missing ones: [1, S, H] against [B, S, H].
    int64_t skip_lead = 0;
    while (skip_lead < skip.rank() && skip.dim(skip_lead) == 1 && skip.rank() - skip_lead > 1) ++skip_lead;
    const int64_t skip_rank = skip.rank() - skip_lead;
    bool trailing = skip_rank <= x.rank() && skip.numel() > 0;
    for (int64_t k = 1; trailing && k <= skip_rank; ++k) trailing = skip.dim(skip.rank() - k) == x.dim(x.rank() - k);
    if (!trailing || skip.dtype() != x.dtype())
      return not_implemented("CUDA SkipLayerNormalization takes a skip of the input's type and shape or its trailing "
                             "dims; got input ", x.describe(), " and skip ", skip.describe());
    const Tensor* beta = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* bias = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    for (const Tensor* p : {&gamma, beta, bias})
      if (p && (p->dtype() != x.dtype() || p->numel() != len))
        return invalid_argument("SkipLayerNormalization: gamma, beta and bias must hold ", len, " values of the input's type; got ",
                                p->describe());
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    Shape stats = x.shape();
    stats.back() = 1;
    float* mean = nullptr;
    float* inv = nullptr;
    void* sum = nullptr;
    if (ctx.output_requested(1)) {
      ONYX_ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output_uninitialized(1, DataType::kFloat, stats));
      mean = t->data<float>();
    }
    if (ctx.output_requested(2)) {
      ONYX_ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output_uninitialized(2, DataType::kFloat, stats));
      inv = t->data<float>();
    }
    if (ctx.output_requested(3)) {
      ONYX_ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output_uninitialized(3, x.dtype(), x.shape()));
      sum = t->raw_data();
    }
    const int64_t rows = len == 0 ? 0 : x.numel() / len;
    if (rows == 0) return Status::Ok();
    const unsigned grid = unsigned(std::min<int64_t>(rows, 65535 * 16));
    const int threads = len >= 1024 ? 512 : len >= 256 ? 256 : 128;
    ONYX_RETURN_IF_ERROR(cuda().activate());
    auto p = [](const Tensor* t) { return t ? t->raw_data() : nullptr; };
    if (x.dtype() == DataType::kFloat) {
      using T = float;
      skip_layer_norm_rows<<<grid, threads, 0, stream()>>>(
          static_cast<const T*>(x.raw_data()), static_cast<const T*>(skip.raw_data()), skip.numel(),
          static_cast<const T*>(gamma.raw_data()), static_cast<const T*>(p(beta)), static_cast<const T*>(p(bias)),
          static_cast<T*>(y->raw_data()), static_cast<T*>(sum), mean, inv, rows, len, epsilon_);
    } else {
      using T = __half;
      skip_layer_norm_rows<<<grid, threads, 0, stream()>>>(
          static_cast<const T*>(x.raw_data()), static_cast<const T*>(skip.raw_data()), skip.numel(),
          static_cast<const T*>(gamma.raw_data()), static_cast<const T*>(p(beta)), static_cast<const T*>(p(bias)),
          static_cast<T*>(y->raw_data()), static_cast<T*>(sum), mean, inv, rows, len, epsilon_);
    }
    return check_launch("SkipLayerNormalization");
  }

 private:
  float epsilon_ = 1e-12f;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "com.microsoft", "SkipLayerNormalization", 1, kLatestOpset,
                              CudaSkipLayerNormalization, refuses, {});

}  // namespace onyx
