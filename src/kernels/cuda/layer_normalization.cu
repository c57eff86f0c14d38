// LayerNormalization (opset 17) on CUDA, float32 and float16 (float32 statistics): each row of
// the dims from `axis` on (default -1) normalised to mean 0 and variance 1 (plus epsilon),
// times Scale plus B. Scale and B must hold one value per normalised element (their common
// form; a smaller broadcast form is refused at run). Optional outputs Mean and InvStdDev are
// float32 with the input's dims before `axis` and 1s after (stash_type 1).
#include "kernels/broadcast.h"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace {

template <typename T>
__global__ void layer_norm_rows(const T* x, const T* scale, const T* bias, T* y, float* mean_out, float* inv_out,
                                int64_t rows, int64_t len, float epsilon) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = x + r * len;
    float s = 0.f;
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) s += float(row[j]);
    const float mean = cuda_reduce::block_reduce<false>(s, scratch) / float(len);
    float q = 0.f;
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) {
      const float d = float(row[j]) - mean;
      q += d * d;
    }
    const float inv = rsqrtf(cuda_reduce::block_reduce<false>(q, scratch) / float(len) + epsilon);
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) {
      const float v = (float(row[j]) - mean) * inv * float(scale[j]) + (bias ? float(bias[j]) : 0.f);
      y[r * len + j] = T(v);
    }
    if (threadIdx.x == 0) {
      if (mean_out) mean_out[r] = mean;
      if (inv_out) inv_out[r] = inv;
    }
  }
}

std::string refuses(const KernelQuery& q) {
  if (const ir::Attribute* stash = q.node.attribute("stash_type"); stash && stash->i != 1)
    return "computes with stash_type 1 (float32) only";
  return refuse_unless(q, {DataType::kFloat, DataType::kFloat16}, {0, 1, 2});
}

class CudaLayerNormalization final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", -1);
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(x, "LayerNormalization", 0));
    ONYX_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, x.rank()));
    int64_t rows = 1, len = 1;
    for (int64_t d = 0; d < x.rank(); ++d) (d < axis ? rows : len) *= x.dim(d);
    const bool has_bias = ctx.has_input(2);
    for (const Tensor* p : {&scale, has_bias ? &ctx.input(2) : nullptr}) {
      if (!p) continue;
      if (p->dtype() != x.dtype())
        return invalid_argument("LayerNormalization: Scale and B must have the type of X, got ", p->describe());
      if (p->numel() != len)
        return not_implemented("CUDA LayerNormalization takes Scale and B of the normalised shape (", len,
                               " elements); got ", p->describe());
    }
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    Shape stats = x.shape();
    for (int64_t d = axis; d < x.rank(); ++d) stats[size_t(d)] = 1;
    float* mean = nullptr;
    float* inv = nullptr;
    if (ctx.output_requested(1)) {
      ONYX_ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output_uninitialized(1, DataType::kFloat, stats));
      mean = t->data<float>();
    }
    if (ctx.output_requested(2)) {
      ONYX_ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output_uninitialized(2, DataType::kFloat, stats));
      inv = t->data<float>();
    }
    if (rows == 0 || len == 0) return Status::Ok();
    const unsigned grid = unsigned(std::min<int64_t>(rows, 65535 * 16));
    const int threads = len >= 1024 ? 512 : len >= 256 ? 256 : 128;
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (x.dtype() == DataType::kFloat) {
      layer_norm_rows<<<grid, threads, 0, stream()>>>(x.data<float>(), scale.data<float>(),
                                                      has_bias ? ctx.input(2).data<float>() : nullptr,
                                                      y->data<float>(), mean, inv, rows, len, epsilon_);
    } else {
      auto h = [](const Tensor& t) { return static_cast<const __half*>(t.raw_data()); };
      layer_norm_rows<<<grid, threads, 0, stream()>>>(h(x), h(scale), has_bias ? h(ctx.input(2)) : nullptr,
                                                      static_cast<__half*>(y->raw_data()), mean, inv, rows, len,
                                                      epsilon_);
    }
    return check_launch("LayerNormalization");
  }

 private:
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "LayerNormalization", 17, kLatestOpset, CudaLayerNormalization, refuses, {});

}  // namespace onyx
