// com.microsoft FusedMatMul on CUDA: Y = alpha * op(A) @ op(B) (transA / transB swap the last
// two dims, read in place by cuBLAS), numpy batching, float32 (no TF32) and float16 (float32
// sums). transBatchA / transBatchB are refused, so such a node runs on the CPU.
#include "kernels/cuda/cublas_product.h"

namespace onyx {
namespace {

std::string refuses(const KernelQuery& q) {
  for (const char* name : {"transBatchA", "transBatchB"})
    if (const ir::Attribute* at = q.node.attribute(name); at && at->i != 0) return std::string("no ") + name;
  return refuse_unless(q, {DataType::kFloat, DataType::kFloat16});
}

class CudaFusedMatMul final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.f);
    trans_a_ = info.attr_int("transA", 0) != 0;
    trans_b_ = info.attr_int("transB", 0) != 0;
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    ONYX_ASSIGN_OR_RETURN(cuda_product::Dims d, cuda_product::dims_of(a, b, trans_a_, trans_b_, "FusedMatMul"));
    ONYX_ASSIGN_OR_RETURN(Tensor * y, d.k == 0 ? ctx.allocate_output(0, a.dtype(), d.out)
                                               : ctx.allocate_output_uninitialized(0, a.dtype(), d.out));
    if (d.k == 0) return Status::Ok();
    return cuda_product::run(cuda(), a, b, d, trans_a_, trans_b_, alpha_, 0.f, *y, "FusedMatMul");
  }

 private:
  float alpha_ = 1.f;
  bool trans_a_ = false, trans_b_ = false;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "com.microsoft", "FusedMatMul", 1, kLatestOpset, CudaFusedMatMul, refuses, {});

}  // namespace onyx
