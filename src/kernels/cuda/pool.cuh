// Pooling on CUDA, float32 and float16 (float32 inside), one output element per thread:
// MaxPool and AveragePool over windows of 1 to 3 spatial dims with any strides, dilations,
// pads (asymmetric too) and ceil_mode, as resolve_pool() resolves them (the CPU's geometry);
// and the global pools, one block per (N, C) plane. Padding never wins a maximum; a window
// wholly in the padding gives -inf (MaxPool) or 0 (AveragePool), as on the CPU.
#pragma once
#include <cmath>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_kernel.h"
#include "kernels/pool_common.h"

namespace onyx {
namespace cuda_pool {

// A window geometry with its dims right-aligned into 3 (unused leading dims: size 1, kernel 1).
struct Window {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1},
          dilation[3] = {1, 1, 1}, pad_begin[3] = {0, 0, 0}, pad_end[3] = {0, 0, 0};
};

inline Result<Window> window_of(const WindowGeometry& g, const char* op) {
  if (g.rank() < 1 || g.rank() > 3) return not_implemented("CUDA ", op, " over ", g.rank(), " spatial dims (it takes 1 to 3)");
  Window w;
  for (size_t k = 0; k < g.rank(); ++k) {
    const size_t j = 3 - g.rank() + k;
    w.in[j] = g.in[k];
    w.out[j] = g.out[k];
    w.kernel[j] = g.kernel[k];
    w.stride[j] = g.strides[k];
    w.dilation[j] = g.dilations[k];
    w.pad_begin[j] = g.pad_begin[k];
    w.pad_end[j] = g.pad_end[k];
  }
  return w;
}

// kMax: the maximum of the taps inside the input; else their sum divided by their count, or
// with count_include_pad by the count of taps inside the padded input (not past it).
template <typename T, bool kMax>
__global__ void window_pool(const T* x, T* y, int64_t n, Window w, bool count_include_pad) {
  const int64_t out_plane = w.out[0] * w.out[1] * w.out[2], in_plane = w.in[0] * w.in[1] * w.in[2];
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const T* plane = x + (i / out_plane) * in_plane;
    int64_t rem = i % out_plane, start[3];
    for (int d = 2; d >= 0; --d) {
      start[d] = (rem % w.out[d]) * w.stride[d] - w.pad_begin[d];
      rem /= w.out[d];
    }
    float acc = kMax ? -INFINITY : 0.f;
    int64_t inside = 0, padded = 1;
    if (!kMax && count_include_pad) {
      for (int d = 0; d < 3; ++d) {
        int64_t taps = 0;  // taps of dim d inside [-pad_begin, in + pad_end)
        for (int64_t k = 0; k < w.kernel[d]; ++k) {
          const int64_t p = start[d] + k * w.dilation[d];
          taps += p >= -w.pad_begin[d] && p < w.in[d] + w.pad_end[d];
        }
        padded *= taps;
      }
    }
    for (int64_t k0 = 0; k0 < w.kernel[0]; ++k0) {
      const int64_t p0 = start[0] + k0 * w.dilation[0];
      if (p0 < 0 || p0 >= w.in[0]) continue;
      for (int64_t k1 = 0; k1 < w.kernel[1]; ++k1) {
        const int64_t p1 = start[1] + k1 * w.dilation[1];
        if (p1 < 0 || p1 >= w.in[1]) continue;
        const T* row = plane + (p0 * w.in[1] + p1) * w.in[2];
        for (int64_t k2 = 0; k2 < w.kernel[2]; ++k2) {
          const int64_t p2 = start[2] + k2 * w.dilation[2];
          if (p2 < 0 || p2 >= w.in[2]) continue;
          const float v = float(row[p2]);
          if (kMax) acc = fmaxf(acc, v);
          else acc += v;
          ++inside;
        }
      }
    }
    if (!kMax) {
      const int64_t count = count_include_pad ? padded : inside;
      acc = count > 0 ? acc / float(count) : 0.f;
    }
    y[i] = T(acc);
  }
}

// One block per plane of `len` elements: its mean (kMax false) or maximum.
template <typename T, bool kMax>
__global__ void global_pool(const T* x, T* y, int64_t planes, int64_t len) {
  __shared__ float scratch[32];
  for (int64_t p = blockIdx.x; p < planes; p += gridDim.x) {
    const T* in = x + p * len;
    float acc = kMax ? -INFINITY : 0.f;
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) acc = kMax ? fmaxf(acc, float(in[j])) : acc + float(in[j]);
    acc = cuda_reduce::block_reduce<kMax>(acc, scratch);
    if (threadIdx.x == 0) y[p] = T(kMax ? acc : acc / float(len));
  }
}

// Threads per block for planes of `len` elements: a multiple of 32, at most 256.
inline int threads_for_plane(int64_t len) { return len >= 256 ? 256 : int((len + 31) / 32 * 32); }

// MaxPool and AveragePool: geometry from `attrs`, Y allocated, kernel launched.
template <bool kMax>
Status run_window_pool(KernelContext& ctx, const WindowAttrs& attrs, bool count_include_pad, cudaStream_t stream,
                       const char* op) {
  const Tensor& x = ctx.input(0);
  ONYX_RETURN_IF_ERROR(expect_float_or_half(x, op, 0));
  ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_pool(attrs, x.shape()));
  ONYX_ASSIGN_OR_RETURN(Window w, window_of(g, op));
  Shape y_shape{x.dim(0), x.dim(1)};
  y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
  ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), y_shape));
  const int64_t n = y->numel();
  if (n == 0) return Status::Ok();
  if (x.dtype() == DataType::kFloat)
    window_pool<float, kMax><<<grid_for(n), 256, 0, stream>>>(x.data<float>(), y->data<float>(), n, w, count_include_pad);
  else
    window_pool<__half, kMax><<<grid_for(n), 256, 0, stream>>>(static_cast<const __half*>(x.raw_data()),
                                                               static_cast<__half*>(y->raw_data()), n, w,
                                                               count_include_pad);
  return CudaKernel::check_launch(op);
}

// GlobalAveragePool and GlobalMaxPool: X (N, C, D1..Dn) -> (N, C, 1..1).
template <bool kMax>
Status run_global_pool(KernelContext& ctx, cudaStream_t stream, const char* op) {
  const Tensor& x = ctx.input(0);
  ONYX_RETURN_IF_ERROR(expect_float_or_half(x, op, 0));
  if (x.rank() < 3) return invalid_argument(op, " takes X of rank 3 or more (N, C, D1...), got ", x.describe());
  Shape y_shape(x.shape().size(), 1);
  y_shape[0] = x.dim(0);
  y_shape[1] = x.dim(1);
  ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), y_shape));
  const int64_t planes = y->numel();
  if (planes == 0) return Status::Ok();
  const int64_t len = x.numel() / planes;
  if (len == 0) return invalid_argument(op, " of X ", x.describe(), ": its spatial dims hold no element");
  const unsigned grid = unsigned(planes < 65535 * 32 ? planes : 65535 * 32);
  const int threads = threads_for_plane(len);
  if (x.dtype() == DataType::kFloat)
    global_pool<float, kMax><<<grid, threads, 0, stream>>>(x.data<float>(), y->data<float>(), planes, len);
  else
    global_pool<__half, kMax><<<grid, threads, 0, stream>>>(static_cast<const __half*>(x.raw_data()),
                                                            static_cast<__half*>(y->raw_data()), planes, len);
  return CudaKernel::check_launch(op);
}

// KernelDef::refuses for the pools: float32 or float16, at most 3 spatial dims where
// kernel_shape says how many, and (MaxPool) no Indices output.
inline std::string refuse_pool(const KernelQuery& q) {
  if (q.node.outputs.size() > 1 && !q.node.outputs[1].empty()) return "gives no Indices output";
  if (const ir::Attribute* k = q.node.attribute("kernel_shape"); k && k->ints.size() > 3)
    return "pools 1 to 3 spatial dims, not " + std::to_string(k->ints.size());
  return float_or_half(q);
}

}  // namespace cuda_pool
}  // namespace onyx
