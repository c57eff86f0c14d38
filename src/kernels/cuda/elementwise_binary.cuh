// Elementwise binary ops on CUDA with ONNX (numpy) broadcasting, float32 and float16 (float16
// computed in float32 and rounded once). A stem file (add.cu, ...) names the functor and
// registers CudaBinaryKernel<Functor>.
#pragma once
#include "kernels/broadcast.h"
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace cuda_elementwise {

template <typename T, typename Op>
__global__ void binary_same_shape(const T* a, const T* b, T* y, int64_t n, Op op) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    y[i] = T(op(float(a[i]), float(b[i])));
}

template <typename T, typename Op>
__global__ void binary_broadcast(const T* a, const T* b, T* y, int64_t n, DimsAndStrides d, Op op) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t rem = i, oa = 0, ob = 0;
    for (int k = d.rank - 1; k >= 0; --k) {
      const int64_t c = rem % d.dims[k];
      rem /= d.dims[k];
      oa += c * d.strides[0][k];
      ob += c * d.strides[1][k];
    }
    y[i] = T(op(float(a[oa]), float(b[ob])));
  }
}

}  // namespace cuda_elementwise

// Op: a functor with `static constexpr const char* kName` and
// `__device__ float operator()(float a, float b) const`.
template <typename Op>
class CudaBinaryKernel final : public CudaKernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(a, Op::kName, 0));
    if (a.dtype() != b.dtype())
      return invalid_argument(Op::kName, ": inputs of different types, ", a.describe(), " and ", b.describe());
    ONYX_ASSIGN_OR_RETURN(Shape out, broadcast_shapes({a.shape(), b.shape()}));
    if (out.size() > size_t(kMaxDims)) return not_implemented("CUDA ", Op::kName, " takes at most ", kMaxDims, " dims");
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, a.dtype(), out));
    if (y->numel() == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (a.dtype() == DataType::kFloat) launch<float>(a, b, *y, out);
    else launch<__half>(a, b, *y, out);
    return check_launch(Op::kName);
  }

 private:
  template <typename T>
  void launch(const Tensor& a, const Tensor& b, Tensor& y, const Shape& out) const {
    const int64_t n = y.numel();
    const T* pa = static_cast<const T*>(a.raw_data());
    const T* pb = static_cast<const T*>(b.raw_data());
    T* py = static_cast<T*>(y.raw_data());
    if (a.shape() == out && b.shape() == out) {
      cuda_elementwise::binary_same_shape<<<grid_for(n), 256, 0, stream()>>>(pa, pb, py, n, Op());
      return;
    }
    DimsAndStrides d;
    d.rank = int(out.size());
    const std::vector<int64_t> sa = broadcast_strides(a.shape(), out), sb = broadcast_strides(b.shape(), out);
    for (int k = 0; k < d.rank; ++k) {
      d.dims[k] = out[size_t(k)];
      d.strides[0][k] = sa[size_t(k)];
      d.strides[1][k] = sb[size_t(k)];
    }
    cuda_elementwise::binary_broadcast<<<grid_for(n), 256, 0, stream()>>>(pa, pb, py, n, d, Op());
  }
};

}  // namespace onyx
