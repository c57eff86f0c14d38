// Cast on CUDA to float32 or float16 (round to nearest even) from float32, float16, int32,
// int64 and bool (an attention mask's usual path), and to the same type (a copy). Other pairs
// stay on the CPU (KernelDef::refuses).
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace {

template <typename From, typename To>
__global__ void convert(const From* x, To* y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    y[i] = To(float(x[i]));
}

template <typename To>
Status launch_from(const Tensor& x, To* y, int64_t n, cudaStream_t stream) {
  const unsigned grid = grid_for(n);
  switch (x.dtype()) {
    case DataType::kFloat: convert<<<grid, 256, 0, stream>>>(x.data<float>(), y, n); break;
    case DataType::kFloat16: convert<<<grid, 256, 0, stream>>>(static_cast<const __half*>(x.raw_data()), y, n); break;
    case DataType::kInt32: convert<<<grid, 256, 0, stream>>>(x.data<int32_t>(), y, n); break;
    case DataType::kInt64: convert<<<grid, 256, 0, stream>>>(x.data<int64_t>(), y, n); break;
    case DataType::kBool: convert<<<grid, 256, 0, stream>>>(x.data<bool>(), y, n); break;
    default: return not_implemented("CUDA Cast from ", data_type_name(x.dtype()));
  }
  return Status::Ok();
}


bool float_or_half_type(int64_t onnx_type) {
  return onnx_type == int64_t(DataType::kFloat) || onnx_type == int64_t(DataType::kFloat16);
}

std::string refuses(const KernelQuery& q) {
  const ir::Attribute* to = q.node.attribute("to");
  if (!to || !float_or_half_type(to->i)) return "casts to float32 or float16 only";
  return refuse_unless(q, {DataType::kFloat, DataType::kFloat16, DataType::kInt32, DataType::kInt64, DataType::kBool},
                       {0});
}

class CudaCast final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    const int64_t to = info.attr_int("to", 0);
    if (!float_or_half_type(to)) return not_implemented("CUDA Cast to ONNX type ", to);
    to_ = DataType(to);
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, to_, x.shape()));
    const int64_t n = x.numel();
    if (n == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (x.dtype() == to_)
      return cuda_status(cudaMemcpyAsync(y->raw_data(), x.raw_data(), x.nbytes(), cudaMemcpyDeviceToDevice, stream()),
                         "cudaMemcpyAsync (Cast to the same type)");
    if (to_ == DataType::kFloat) {
      ONYX_RETURN_IF_ERROR(launch_from(x, y->data<float>(), n, stream()));
    } else {
      ONYX_RETURN_IF_ERROR(launch_from(x, static_cast<__half*>(y->raw_data()), n, stream()));
    }
    return check_launch("Cast");
  }

 private:
  DataType to_ = DataType::kFloat;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Cast", 6, kLatestOpset, CudaCast, refuses, {});

}  // namespace onyx
