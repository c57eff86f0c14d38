// See cublas_product.h.
#include "kernels/cuda/cublas_product.h"

#include <algorithm>

#include "kernels/broadcast.h"

namespace onyx::cuda_product {

Result<Dims> dims_of(const Tensor& a, const Tensor& b, bool trans_a, bool trans_b, const char* op) {
  ONYX_RETURN_IF_ERROR(expect_float_or_half(a, op, 0));
  if (a.dtype() != b.dtype())
    return invalid_argument(op, ": inputs of different types, ", a.describe(), " and ", b.describe());
  if (a.rank() == 0 || b.rank() == 0) return invalid_argument(op, ": scalar operand (", a.describe(), ", ", b.describe(), ")");
  Shape as = a.shape(), bs = b.shape();
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  const bool ta = trans_a && !a_vec, tb = trans_b && !b_vec;
  Dims d;
  d.m = ta ? as.back() : as[as.size() - 2];
  d.k = ta ? as[as.size() - 2] : as.back();
  d.n = tb ? bs[bs.size() - 2] : bs.back();
  const int64_t kb = tb ? bs.back() : bs[bs.size() - 2];
  if (kb != d.k) return invalid_argument(op, ": inner dims differ, ", a.describe(), " x ", b.describe());
  d.a_batch.assign(as.begin(), as.end() - 2);
  d.b_batch.assign(bs.begin(), bs.end() - 2);
  ONYX_ASSIGN_OR_RETURN(d.batch, broadcast_shapes({d.a_batch, d.b_batch}));
  d.out = d.batch;
  if (!a_vec) d.out.push_back(d.m);
  if (!b_vec) d.out.push_back(d.n);
  if (d.m > INT32_MAX || d.n > INT32_MAX || d.k > INT32_MAX)
    return not_implemented("CUDA ", op, ": dims past 2^31 (", a.describe(), " x ", b.describe(), ")");
  return d;
}

Status run(const CudaProvider& cuda, const Tensor& a, const Tensor& b, const Dims& d, bool trans_a, bool trans_b,
           float alpha, float beta, Tensor& y, const char* op) {
  if (y.numel() == 0) return Status::Ok();
  const bool ta = trans_a && a.rank() > 1, tb = trans_b && b.rank() > 1;
  const int64_t m = d.m, n = d.n, k = d.k;
  const int64_t count = shape_size(d.batch), a_count = shape_size(d.a_batch), b_count = shape_size(d.b_batch);
  const cudaDataType_t type = a.dtype() == DataType::kFloat ? CUDA_R_32F : CUDA_R_16F;
  const size_t item = a.itemsize();
  const char* pa = static_cast<const char*>(a.raw_data());
  const char* pb = static_cast<const char*>(b.raw_data());
  char* py = static_cast<char*>(y.raw_data());
  // Row-major Y = op(A) op(B) is column-major Y^T = op(B)^T op(A)^T: cuBLAS sees B first. A
  // row-major matrix is its transpose in column-major, so a stored operand is taken as is
  // (CUBLAS_OP_N) unless op transposes it.
  const cublasOperation_t op_b = tb ? CUBLAS_OP_T : CUBLAS_OP_N, op_a = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ldb = int(tb ? k : n), lda = int(ta ? m : k);
  ONYX_RETURN_IF_ERROR(cuda.activate());
  auto lock = cuda.lock_blas();
  if (k == 0) {  // an empty sum: Y = beta * Y, beta 0 or 1
    if (beta == 0.f) ONYX_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(py, 0, y.nbytes(), cuda.stream()));
    return Status::Ok();
  }
  if ((a_count == count || a_count == 1) && (b_count == count || b_count == 1)) {
    ONYX_CUBLAS_RETURN_IF_ERROR(cublasGemmStridedBatchedEx(
        cuda.cublas(), op_b, op_a, int(n), int(m), int(k), &alpha, pb, type, ldb, b_count == 1 ? 0 : k * n, pa, type,
        lda, a_count == 1 ? 0 : m * k, &beta, py, type, int(n), m * n, int(count), CUBLAS_COMPUTE_32F,
        CUBLAS_GEMM_DEFAULT));
    return Status::Ok();
  }
  const std::vector<int64_t> sa = broadcast_strides(d.a_batch, d.batch), sb = broadcast_strides(d.b_batch, d.batch);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rem = i, oa = 0, ob = 0;
    for (size_t dim = d.batch.size(); dim-- > 0;) {
      const int64_t c = rem % d.batch[dim];
      rem /= d.batch[dim];
      oa += c * sa[dim];
      ob += c * sb[dim];
    }
    ONYX_CUBLAS_RETURN_IF_ERROR(cublasGemmEx(cuda.cublas(), op_b, op_a, int(n), int(m), int(k), &alpha,
                                             pb + size_t(ob * k * n) * item, type, ldb, pa + size_t(oa * m * k) * item,
                                             type, lda, &beta, py + size_t(i * m * n) * item, type, int(n),
                                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  return Status::Ok();
}

Status gemm_strided_f32(const CudaProvider& cuda, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                        float alpha, const float* a, int64_t lda, int64_t stride_a, const float* b, int64_t ldb,
                        int64_t stride_b, float beta, float* c, int64_t ldc, int64_t stride_c, int64_t count) {
  for (int64_t v : {m, n, k, lda, ldb, ldc, count})
    if (v > INT32_MAX) return not_implemented("CUDA product: a dim or leading dim past 2^31");
  if (m == 0 || n == 0 || count == 0) return Status::Ok();
  ONYX_CUBLAS_RETURN_IF_ERROR(cublasGemmStridedBatchedEx(
      cuda.cublas(), trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, int(m), int(n), int(k),
      &alpha, a, CUDA_R_32F, int(std::max<int64_t>(lda, 1)), stride_a, b, CUDA_R_32F, int(std::max<int64_t>(ldb, 1)),
      stride_b, &beta, c, CUDA_R_32F, int(std::max<int64_t>(ldc, 1)), stride_c, int(count), CUBLAS_COMPUTE_32F,
      CUBLAS_GEMM_DEFAULT));
  return Status::Ok();
}

}  // namespace onyx::cuda_product
