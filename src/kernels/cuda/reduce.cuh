// The Reduce* family on CUDA, float32 and float16 (float32 sums inside). The axes, keepdims
// and noop_with_empty_axes are read as on the CPU (ReduceAxes, ReducePlan in kernels/reduce.h:
// unit dims dropped, neighbouring kept and reduced dims merged). Each output element is folded
// by a warp, or by a block of 256 threads when there are few outputs and many elements each.
// An empty reduction gives the op's identity as on the CPU (0, 1, -inf, +inf, log 0 = -inf).
// A stem file (reduce_sum.cu, ...) registers CudaReduce<op>.
#pragma once
#include <cmath>

#include "kernels/cuda/cuda_kernel.h"
#include "kernels/reduce.h"

namespace onyx {
namespace cuda_reduce_ops {

enum class Op { kSum, kMean, kMax, kMin, kProd, kSumSquare, kL1, kL2, kLogSum, kLogSumExp };

// The merged kept and reduced dims with their input strides.
struct Plan {
  int kept_rank = 0, red_rank = 0;
  int64_t kept_dims[kMaxDims] = {}, kept_strides[kMaxDims] = {};
  int64_t red_dims[kMaxDims] = {}, red_strides[kMaxDims] = {};
  int64_t out_count = 0, reduce_count = 0;
};

enum class Combine { kSum, kMax, kMin, kProd };

template <Op kOp>
__device__ constexpr Combine combine_of() {
  return kOp == Op::kMax || kOp == Op::kLogSumExp ? Combine::kMax
         : kOp == Op::kMin                        ? Combine::kMin
         : kOp == Op::kProd                       ? Combine::kProd
                                                  : Combine::kSum;
}

// NaN wins a maximum or minimum and then sticks, as on the CPU.
template <Combine kC>
__device__ inline float combine(float a, float b) {
  if (kC == Combine::kSum) return a + b;
  if (kC == Combine::kProd) return a * b;
  if (kC == Combine::kMax) return (b > a || b != b) && a == a ? b : a;
  return (b < a || b != b) && a == a ? b : a;
}

template <Combine kC>
__device__ inline float identity() {
  return kC == Combine::kSum ? 0.f : kC == Combine::kProd ? 1.f : kC == Combine::kMax ? -INFINITY : INFINITY;
}

// Folds v over the group of `threads` threads (32: a warp; 256: the block, through `scratch`
// of 8 floats); every thread of the group gets the result.
template <Combine kC>
__device__ inline float group_fold(float v, int threads, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) v = combine<kC>(v, __shfl_xor_sync(0xffffffffu, v, o));
  if (threads == 32) return v;
  __syncthreads();
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  v = scratch[0];
  for (int w = 1; w < threads / 32; ++w) v = combine<kC>(v, scratch[w]);
  return v;
}

// The input offset of element `i` of a row-major walk over `rank` dims with these strides.
__device__ inline int64_t strided_offset(int64_t i, int rank, const int64_t* dims, const int64_t* strides) {
  int64_t off = 0;
  for (int k = rank - 1; k >= 0; --k) {
    off += (i % dims[k]) * strides[k];
    i /= dims[k];
  }
  return off;
}

// Output `o` per group of `threads` threads (blockDim.x is a multiple of it).
template <typename T, Op kOp>
__global__ void reduce(const T* x, T* y, Plan p, int threads) {
  __shared__ float scratch[8];
  constexpr Combine kC = combine_of<kOp>();
  const int lane = threadIdx.x % threads;
  const int64_t groups_per_block = blockDim.x / threads;
  const int64_t first = blockIdx.x * groups_per_block + threadIdx.x / threads;
  // Every thread of a block runs the same number of iterations (group_fold may sync the block).
  for (int64_t round = first - threadIdx.x / threads; round < p.out_count; round += gridDim.x * groups_per_block) {
    const int64_t o = round + threadIdx.x / threads;
    const bool active = o < p.out_count;
    const int64_t base = active ? strided_offset(o, p.kept_rank, p.kept_dims, p.kept_strides) : 0;
    const int64_t n = active ? p.reduce_count : 0;
    float acc = identity<kC>();
    for (int64_t j = lane; j < n; j += threads) {
      const float v = float(x[base + strided_offset(j, p.red_rank, p.red_dims, p.red_strides)]);
      acc = combine<kC>(acc, kOp == Op::kSumSquare || kOp == Op::kL2 ? v * v : kOp == Op::kL1 ? fabsf(v) : v);
    }
    acc = group_fold<kC>(acc, threads, scratch);
    if (kOp == Op::kLogSumExp && !isinf(acc)) {  // acc is the maximum: now sum exp(v - max)
      const float m = acc;
      float s = 0.f;
      for (int64_t j = lane; j < n; j += threads)
        s += expf(float(x[base + strided_offset(j, p.red_rank, p.red_dims, p.red_strides)]) - m);
      acc = m + logf(group_fold<Combine::kSum>(s, threads, scratch));
    }
    if (kOp == Op::kMean) acc = acc / float(p.reduce_count);  // 0 / 0: NaN, as on the CPU
    if (kOp == Op::kL2) acc = sqrtf(acc);
    if (kOp == Op::kLogSum) acc = logf(acc);
    if (active && lane == 0) y[o] = T(acc);
  }
}

}  // namespace cuda_reduce_ops

// kName: the op's name; kAxesInputSince: ReduceAxes' axes_input_since for it.
template <cuda_reduce_ops::Op kOp, int kAxesInputSince>
class CudaReduce final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    axes_ = ReduceAxes::parse(info, kAxesInputSince);
    name_ = info.node().op_type;
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(x, name_.c_str(), 0));
    ONYX_ASSIGN_OR_RETURN(const std::vector<int64_t> axes, axes_.resolve(ctx));
    if (axes_.noop(axes)) {
      ctx.set_output(0, x);
      return Status::Ok();
    }
    ONYX_ASSIGN_OR_RETURN(const ReducePlan plan, make_reduce_plan(x.shape(), axes, axes_.keepdims));
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), plan.out_shape));
    if (plan.out_count == 0) return Status::Ok();
    if (plan.kept_dims.size() > size_t(kMaxDims) || plan.red_dims.size() > size_t(kMaxDims))
      return not_implemented("CUDA ", name_, " over more than ", kMaxDims, " merged dims");
    cuda_reduce_ops::Plan p;
    p.kept_rank = int(plan.kept_dims.size());
    p.red_rank = int(plan.red_dims.size());
    for (int k = 0; k < p.kept_rank; ++k) {
      p.kept_dims[k] = plan.kept_dims[size_t(k)];
      p.kept_strides[k] = plan.kept_strides[size_t(k)];
    }
    for (int k = 0; k < p.red_rank; ++k) {
      p.red_dims[k] = plan.red_dims[size_t(k)];
      p.red_strides[k] = plan.red_strides[size_t(k)];
    }
    p.out_count = plan.out_count;
    p.reduce_count = plan.reduce_count;
    // A block per output for few, long reductions; else a warp per output, 8 per block.
    const int threads = plan.out_count < 2048 && plan.reduce_count >= 4096 ? 256 : 32;
    const int64_t per_block = 256 / threads;
    const int64_t blocks64 = (plan.out_count + per_block - 1) / per_block;
    const unsigned blocks = unsigned(blocks64 < 65535 * 32 ? blocks64 : 65535 * 32);
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (x.dtype() == DataType::kFloat)
      cuda_reduce_ops::reduce<float, kOp><<<blocks, 256, 0, stream()>>>(x.data<float>(), y->data<float>(), p, threads);
    else
      cuda_reduce_ops::reduce<__half, kOp><<<blocks, 256, 0, stream()>>>(
          static_cast<const __half*>(x.raw_data()), static_cast<__half*>(y->raw_data()), p, threads);
    return check_launch(name_.c_str());
  }

 private:
  ReduceAxes axes_;
  std::string name_;
};

}  // namespace onyx
