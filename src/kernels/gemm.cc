#include "kernels/gemm.h"

#include <algorithm>
#include <vector>

#include "core/parallel.h"

namespace onyx {
namespace {

// Register tile: kMr rows of C by Nr<T> columns (one 64-byte line of T per row).
constexpr int64_t kMr = 4;
template <typename T> constexpr int64_t Nr = 64 / int64_t(sizeof(T));
// Cache blocks: kKc deep panels of kNc columns of B, kMc rows of A per task.
constexpr int64_t kKc = 256;
constexpr int64_t kNc = 512;
constexpr int64_t kMc = 64;

// Packs op(B)[p0:p0+kc, j0:j0+nc] into panels of Nr columns: panel q holds rows p in order,
// each row Nr values, zero-padded past nc.
template <typename T>
void pack_b(bool trans_b, const T* b, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* out) {
  constexpr int64_t nr = Nr<T>;
  for (int64_t q = 0; q < nc; q += nr) {
    const int64_t w = std::min(nr, nc - q);
    for (int64_t p = 0; p < kc; ++p) {
      T* dst = out + q * kc + p * nr;
      for (int64_t j = 0; j < w; ++j)
        dst[j] = trans_b ? b[(j0 + q + j) * ldb + (p0 + p)] : b[(p0 + p) * ldb + (j0 + q + j)];
      for (int64_t j = w; j < nr; ++j) dst[j] = T(0);
    }
  }
}

// Packs alpha * op(A)[i0:i0+mc, p0:p0+kc] into panels of kMr rows, zero-padded past mc.
template <typename T>
void pack_a(bool trans_a, const T* a, int64_t lda, T alpha, int64_t i0, int64_t mc, int64_t p0, int64_t kc, T* out) {
  for (int64_t r0 = 0; r0 < mc; r0 += kMr) {
    const int64_t h = std::min(kMr, mc - r0);
    for (int64_t p = 0; p < kc; ++p) {
      T* dst = out + r0 * kc + p * kMr;
      for (int64_t r = 0; r < h; ++r) {
        const int64_t i = i0 + r0 + r;
        dst[r] = alpha * (trans_a ? a[(p0 + p) * lda + i] : a[i * lda + (p0 + p)]);
      }
      for (int64_t r = h; r < kMr; ++r) dst[r] = T(0);
    }
  }
}

// C[0:h, 0:w] += Ap (kMr x kc panel) * Bp (kc x Nr panel).
template <typename T>
void micro_kernel(int64_t kc, const T* ap, const T* bp, T* c, int64_t ldc, int64_t h, int64_t w) {
  constexpr int64_t nr = Nr<T>;
  T acc[kMr][nr] = {};
  for (int64_t p = 0; p < kc; ++p) {
    const T* bv = bp + p * nr;
    const T* av = ap + p * kMr;
    for (int64_t r = 0; r < kMr; ++r) {
      const T ar = av[r];
      for (int64_t j = 0; j < nr; ++j) acc[r][j] += ar * bv[j];
    }
  }
  for (int64_t r = 0; r < h; ++r)
    for (int64_t j = 0; j < w; ++j) c[r * ldc + j] += acc[r][j];
}

}  // namespace

template <typename T>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
          const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  for (int64_t i = 0; i < m; ++i) {
    T* row = c + i * ldc;
    if (beta == T(0)) {
      std::fill(row, row + n, T(0));
    } else if (beta != T(1)) {
      for (int64_t j = 0; j < n; ++j) row[j] *= beta;
    }
  }
  if (k <= 0 || alpha == T(0)) return;

  constexpr int64_t nr = Nr<T>;
  std::vector<T> bpack(size_t(kKc * ((std::min(kNc, n) + nr - 1) / nr * nr)));
  for (int64_t j0 = 0; j0 < n; j0 += kNc) {
    const int64_t nc = std::min(kNc, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kKc) {
      const int64_t kc = std::min(kKc, k - p0);
      pack_b(trans_b, b, ldb, p0, kc, j0, nc, bpack.data());
      const int64_t blocks = (m + kMc - 1) / kMc;
      parallel_for(blocks, 1, [&](int64_t begin, int64_t end) {
        std::vector<T> apack(size_t(kMc * kc));
        for (int64_t blk = begin; blk < end; ++blk) {
          const int64_t i0 = blk * kMc;
          const int64_t mc = std::min(kMc, m - i0);
          pack_a(trans_a, a, lda, alpha, i0, mc, p0, kc, apack.data());
          for (int64_t r0 = 0; r0 < mc; r0 += kMr) {
            for (int64_t q = 0; q < nc; q += nr) {
              micro_kernel(kc, apack.data() + r0 * kc, bpack.data() + q * kc, c + (i0 + r0) * ldc + j0 + q, ldc,
                           std::min(kMr, mc - r0), std::min(nr, nc - q));
            }
          }
        }
      });
    }
  }
}

template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                          int64_t, float, float*, int64_t);
template void gemm<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*, int64_t, const double*,
                           int64_t, double, double*, int64_t);
template void gemm<uint64_t>(bool, bool, int64_t, int64_t, int64_t, uint64_t, const uint64_t*, int64_t,
                             const uint64_t*, int64_t, uint64_t, uint64_t*, int64_t);

}  // namespace onyx
