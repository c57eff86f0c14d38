// LayerNormalizationGrad (ai.onyx.training) on CUDA, float32: the gradients of
// LayerNormalization (opset 17) from dY, X and Scale (attributes axis, epsilon as the forward
// node's). Rows are X's dims before `axis`, columns the normalised dims; with xhat =
// (X - mean) * inv_std (population variance) and G = dY * Scale, per row
//   dX = inv_std * (G - mean(G) - xhat * mean(G * xhat))
// and over the rows dScale = sum(dY * xhat), dBias = sum(dY) (outputs 1 and 2, optional).
// Pass one: a block per row (dX, and the row's mean and inv_std kept). Pass two: blocks of 32
// columns by a chunk of rows write partial sums; pass three adds each column's chunks in order,
// so the sums do not depend on scheduling.
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace {

__global__ void input_gradient_rows(const float* dy, const float* x, const float* scale, float* dx, float* mean_out,
                                    float* inv_out, int64_t rows, int64_t cols, float epsilon) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * cols;
    const float* gr = dy + r * cols;
    float s = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += xr[j];
    const float mean = cuda_reduce::block_reduce<false>(s, scratch) / float(cols);
    float q = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) q += (xr[j] - mean) * (xr[j] - mean);
    const float inv = rsqrtf(cuda_reduce::block_reduce<false>(q, scratch) / float(cols) + epsilon);
    float sg = 0.f, sgx = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float g = gr[j] * scale[j];
      sg += g;
      sgx += g * (xr[j] - mean) * inv;
    }
    const float mean_g = cuda_reduce::block_reduce<false>(sg, scratch) / float(cols);
    const float mean_gx = cuda_reduce::block_reduce<false>(sgx, scratch) / float(cols);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float xhat = (xr[j] - mean) * inv;
      dx[r * cols + j] = inv * (gr[j] * scale[j] - mean_g - xhat * mean_gx);
    }
    if (threadIdx.x == 0) {
      mean_out[r] = mean;
      inv_out[r] = inv;
    }
  }
}

constexpr int kColumnsPerBlock = 32, kRowLanes = 8;

// partial[chunk * cols + c] over the rows of chunk blockIdx.y (rows_per_chunk each).
__global__ void parameter_partials(const float* dy, const float* x, const float* mean, const float* inv, int64_t rows,
                                   int64_t cols, int64_t rows_per_chunk, float* partial_scale, float* partial_bias) {
  __shared__ float s_scale[kRowLanes][kColumnsPerBlock], s_bias[kRowLanes][kColumnsPerBlock];
  const int64_t c = int64_t(blockIdx.x) * kColumnsPerBlock + threadIdx.x;
  const int64_t r0 = int64_t(blockIdx.y) * rows_per_chunk, r1 = min(rows, r0 + rows_per_chunk);
  float ds = 0.f, db = 0.f;
  if (c < cols) {
    for (int64_t r = r0 + threadIdx.y; r < r1; r += kRowLanes) {
      const float g = dy[r * cols + c];
      ds += g * (x[r * cols + c] - mean[r]) * inv[r];
      db += g;
    }
  }
  s_scale[threadIdx.y][threadIdx.x] = ds;
  s_bias[threadIdx.y][threadIdx.x] = db;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    for (int k = 1; k < kRowLanes; ++k) {
      ds += s_scale[k][threadIdx.x];
      db += s_bias[k][threadIdx.x];
    }
    partial_scale[blockIdx.y * cols + c] = ds;
    partial_bias[blockIdx.y * cols + c] = db;
  }
}

__global__ void parameter_totals(const float* partial_scale, const float* partial_bias, int64_t chunks, int64_t cols,
                                 float* dscale, float* dbias) {
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < cols; c += int64_t(gridDim.x) * blockDim.x) {
    float s = 0.f, b = 0.f;
    for (int64_t k = 0; k < chunks; ++k) {
      s += partial_scale[k * cols + c];
      b += partial_bias[k * cols + c];
    }
    if (dscale) dscale[c] = s;
    if (dbias) dbias[c] = b;
  }
}

std::string refuses(const KernelQuery& q) { return refuse_unless(q, {DataType::kFloat}); }

class CudaLayerNormalizationGrad final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", -1);
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& scale = ctx.input(2);
    if (x.dtype() != DataType::kFloat || dy.dtype() != DataType::kFloat || scale.dtype() != DataType::kFloat)
      return not_implemented("CUDA LayerNormalizationGrad (ai.onyx.training) for ", x.describe(), " (float32 only)");
    if (dy.shape() != x.shape())
      return invalid_argument("LayerNormalizationGrad: dY ", dy.describe(), " and X ", x.describe(), " differ");
    const int64_t axis = axis_ < 0 ? axis_ + x.rank() : axis_;
    if (axis < 0 || axis >= x.rank())
      return invalid_argument("LayerNormalizationGrad: axis ", axis_, " is out of range for ", x.describe());
    const Shape cols_shape(x.shape().begin() + axis, x.shape().end());
    if (scale.shape() != cols_shape)
      return invalid_argument("LayerNormalizationGrad: Scale ", scale.describe(), " must have the shape ",
                              shape_to_string(cols_shape));
    const int64_t cols = scale.numel(), rows = cols ? x.numel() / cols : 0;
    ONYX_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output_uninitialized(0, DataType::kFloat, x.shape()));
    float* dscale = nullptr;
    float* dbias = nullptr;
    if (ctx.output_requested(1)) {
      ONYX_ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output(1, DataType::kFloat, cols_shape));
      dscale = t->data<float>();
    }
    if (ctx.output_requested(2)) {
      ONYX_ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output(2, DataType::kFloat, cols_shape));
      dbias = t->data<float>();
    }
    if (rows == 0 || cols == 0) return Status::Ok();
    ONYX_ASSIGN_OR_RETURN(Tensor stats, ctx.allocate_scratch(DataType::kFloat, {2, rows}));
    float* mean = stats.data<float>();
    float* inv = mean + rows;
    ONYX_RETURN_IF_ERROR(cuda().activate());
    const unsigned grid = unsigned(std::min<int64_t>(rows, 65535 * 16));
    const int threads = cols >= 1024 ? 512 : cols >= 256 ? 256 : 128;
    input_gradient_rows<<<grid, threads, 0, stream()>>>(dy.data<float>(), x.data<float>(), scale.data<float>(),
                                                        dx->data<float>(), mean, inv, rows, cols, epsilon_);
    ONYX_RETURN_IF_ERROR(check_launch("LayerNormalizationGrad"));
    if (!dscale && !dbias) return Status::Ok();
    const int64_t rows_per_chunk = std::max<int64_t>(kRowLanes * 4, (rows + 127) / 128);
    const int64_t chunks = (rows + rows_per_chunk - 1) / rows_per_chunk;
    const int64_t column_blocks = (cols + kColumnsPerBlock - 1) / kColumnsPerBlock;
    if (column_blocks > INT32_MAX || chunks > 65535)
      return not_implemented("CUDA LayerNormalizationGrad: ", x.describe(), " is too large");
    ONYX_ASSIGN_OR_RETURN(Tensor partials, ctx.allocate_scratch(DataType::kFloat, {2, chunks, cols}));
    float* partial_scale = partials.data<float>();
    float* partial_bias = partial_scale + chunks * cols;
    parameter_partials<<<dim3(unsigned(column_blocks), unsigned(chunks)), dim3(kColumnsPerBlock, kRowLanes), 0,
                         stream()>>>(dy.data<float>(), x.data<float>(), mean, inv, rows, cols, rows_per_chunk,
                                     partial_scale, partial_bias);
    ONYX_RETURN_IF_ERROR(check_launch("LayerNormalizationGrad"));
    parameter_totals<<<grid_for(cols), 256, 0, stream()>>>(partial_scale, partial_bias, chunks, cols, dscale, dbias);
    return check_launch("LayerNormalizationGrad");
  }

 private:
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "ai.onyx.training", "LayerNormalizationGrad", 1, kLatestOpset,
                              CudaLayerNormalizationGrad, refuses, {});

}  // namespace onyx
