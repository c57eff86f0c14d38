// MatMul on CUDA through cuBLAS: float32 (float32 products and sums, no TF32) and float16
// (float32 sums), numpy batch broadcasting; 1-D operands promoted and their dim dropped, as
// ONNX says. A batch that both operands cover fully, or that one of them does not vary over,
// is one strided-batched call; other broadcasts take one call per batch item.
#include "kernels/broadcast.h"
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace {

std::string refuses(const KernelQuery& q) { return refuse_unless(q, {DataType::kFloat, DataType::kFloat16}); }

class CudaMatMul final : public CudaKernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(a, "MatMul", 0));
    if (a.dtype() != b.dtype())
      return invalid_argument("MatMul: inputs of different types, ", a.describe(), " and ", b.describe());
    if (a.rank() == 0 || b.rank() == 0) return invalid_argument("MatMul: scalar operand (", a.describe(), ", ", b.describe(), ")");
    Shape as = a.shape(), bs = b.shape();
    const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
    if (a_vec) as.insert(as.begin(), 1);
    if (b_vec) bs.push_back(1);
    const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    if (bs[bs.size() - 2] != k) return invalid_argument("MatMul: inner dims differ, ", a.describe(), " x ", b.describe());
    const Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
    ONYX_ASSIGN_OR_RETURN(Shape batch, broadcast_shapes({a_batch, b_batch}));
    Shape out = batch;
    if (!a_vec) out.push_back(m);
    if (!b_vec) out.push_back(n);
    ONYX_ASSIGN_OR_RETURN(Tensor * y, k == 0 ? ctx.allocate_output(0, a.dtype(), out)
                                             : ctx.allocate_output_uninitialized(0, a.dtype(), out));
    if (y->numel() == 0 || k == 0) return Status::Ok();
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
      return not_implemented("CUDA MatMul: dims past 2^31 (", a.describe(), " x ", b.describe(), ")");
    int64_t count = 1;
    for (int64_t d : batch) count *= d;
    const int64_t a_count = shape_size(a_batch), b_count = shape_size(b_batch);
    const cudaDataType_t type = a.dtype() == DataType::kFloat ? CUDA_R_32F : CUDA_R_16F;
    const size_t item = a.itemsize();
    const char* pa = static_cast<const char*>(a.raw_data());
    const char* pb = static_cast<const char*>(b.raw_data());
    char* py = static_cast<char*>(y->raw_data());
    const float one = 1.f, zero = 0.f;
    ONYX_RETURN_IF_ERROR(cuda().activate());
    auto lock = cuda().lock_blas();
    // Row-major Y = A B is column-major Y^T = B^T A^T: cuBLAS sees B first.
    if ((a_count == count || a_count == 1) && (b_count == count || b_count == 1)) {
      ONYX_CUBLAS_RETURN_IF_ERROR(cublasGemmStridedBatchedEx(
          cuda().cublas(), CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one, pb, type, int(n),
          b_count == 1 ? 0 : k * n, pa, type, int(k), a_count == 1 ? 0 : m * k, &zero, py, type, int(n), m * n,
          int(count), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      return Status::Ok();
    }
    const std::vector<int64_t> sa = broadcast_strides(a_batch, batch), sb = broadcast_strides(b_batch, batch);
    for (int64_t i = 0; i < count; ++i) {
      int64_t rem = i, oa = 0, ob = 0;
      for (size_t d = batch.size(); d-- > 0;) {
        const int64_t c = rem % batch[d];
        rem /= batch[d];
        oa += c * sa[d];
        ob += c * sb[d];
      }
      ONYX_CUBLAS_RETURN_IF_ERROR(cublasGemmEx(cuda().cublas(), CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one,
                                               pb + size_t(ob * k * n) * item, type, int(n),
                                               pa + size_t(oa * m * k) * item, type, int(k), &zero,
                                               py + size_t(i * m * n) * item, type, int(n), CUBLAS_COMPUTE_32F,
                                               CUBLAS_GEMM_DEFAULT));
    }
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "MatMul", 1, kLatestOpset, CudaMatMul, refuses, {});

}  // namespace onyx
