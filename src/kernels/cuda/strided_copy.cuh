// One element of the output per thread, read from the input at base + sum(coord[k] *
// strides[0][k]) over the output's dims (row-major): Slice (steps and starts folded into the
// strides and base, negative steps included), Expand (stride 0 on broadcast dims) and Transpose
// (permuted strides). Elements are moved as unsigned words of their width (1, 2, 4 or 8 bytes).
#pragma once
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace cuda_copy {

template <typename W>
__global__ void strided_gather(const W* x, W* y, int64_t n, int64_t base, DimsAndStrides d) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t rem = i, off = base;
    for (int k = d.rank - 1; k >= 0; --k) {
      off += (rem % d.dims[k]) * d.strides[0][k];
      rem /= d.dims[k];
    }
    y[i] = x[off];
  }
}

// Launches strided_gather for `item`-byte elements (n > 0); NOT_IMPLEMENTED for other widths.
inline Status launch_strided_gather(const void* x, void* y, int64_t n, int64_t base, const DimsAndStrides& d,
                                    size_t item, cudaStream_t stream, const char* op) {
  const unsigned grid = grid_for(n);
  switch (item) {
    case 1: strided_gather<<<grid, 256, 0, stream>>>(static_cast<const uint8_t*>(x), static_cast<uint8_t*>(y), n, base, d); break;
    case 2: strided_gather<<<grid, 256, 0, stream>>>(static_cast<const uint16_t*>(x), static_cast<uint16_t*>(y), n, base, d); break;
    case 4: strided_gather<<<grid, 256, 0, stream>>>(static_cast<const uint32_t*>(x), static_cast<uint32_t*>(y), n, base, d); break;
    case 8: strided_gather<<<grid, 256, 0, stream>>>(static_cast<const uint64_t*>(x), static_cast<uint64_t*>(y), n, base, d); break;
    default: return not_implemented("CUDA ", op, " of ", item, "-byte elements");
  }
  return Status::Ok();
}

// KernelDef::refuses for ops that move elements without reading them: any type but strings.
inline std::string refuse_strings(const KernelQuery& q) {
  for (DataType t : q.input_types)
    if (t == DataType::kString) return "strings stay on the host";
  return "";
}

}  // namespace cuda_copy
}  // namespace onyx
