// A plain blocked GEMM shared by MatMul, Gemm, Conv, ConvTranspose and the integer ops.
//
//   C = alpha * op(A) * op(B) + beta * C
//
// All matrices are row-major; op(A) is m x k, op(B) is k x n, C is m x n. lda / ldb / ldc are
// the row strides (in elements) of A, B and C as stored (A stored k x m when trans_a).
// beta == 0 overwrites C without reading it (NaN in C does not leak through).
// Instantiated for float, double and uint64_t (integer ops compute in uint64_t: two's-complement
// wrap-around without undefined behaviour).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace onyx {

template <typename T>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
          const T* b, int64_t ldb, T beta, T* c, int64_t ldc);

// `src` as CT values: the pointer itself when T is CT, else a converted copy held in `buf`.
template <typename CT, typename T>
const CT* as_compute_type(const T* src, int64_t n, std::vector<CT>& buf) {
  if constexpr (std::is_same_v<T, CT>) {
    return src;
  } else {
    buf.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) buf[size_t(i)] = static_cast<CT>(src[i]);
    return buf.data();
  }
}

}  // namespace onyx
