// MatMul on CUDA through cuBLAS (cublas_product): float32 (float32 products and sums, no TF32)
// and float16 (float32 sums), numpy batch broadcasting; 1-D operands promoted and their dim
// dropped, as ONNX says.
#include "kernels/cuda/cublas_product.h"

namespace onyx {
namespace {

std::string refuses(const KernelQuery& q) { return refuse_unless(q, {DataType::kFloat, DataType::kFloat16}); }

class CudaMatMul final : public CudaKernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    ONYX_ASSIGN_OR_RETURN(cuda_product::Dims d, cuda_product::dims_of(a, b, false, false, "MatMul"));
    ONYX_ASSIGN_OR_RETURN(Tensor * y, d.k == 0 ? ctx.allocate_output(0, a.dtype(), d.out)
                                               : ctx.allocate_output_uninitialized(0, a.dtype(), d.out));
    if (d.k == 0) return Status::Ok();
    return cuda_product::run(cuda(), a, b, d, false, false, 1.f, 0.f, *y, "MatMul");
  }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "MatMul", 1, kLatestOpset, CudaMatMul, refuses, {});

}  // namespace onyx
