// small_matmul (attention's per-head products): both forms against a float64 reference over
// shapes that hit every edge of the register tiles (rows not a multiple of 8 or 4, columns
// not a multiple of 32 or 16, no inner dim at all), with leading dims wider than the block
// and a scale; and c outside the block untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/small_matmul.h"

namespace onyx {
namespace {

using MatMulFn = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t, int64_t, int64_t,
                          float);

void check_shapes(MatMulFn fn) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  const int64_t kRows[] = {1, 3, 4, 7, 8, 9, 17, 128};
  const int64_t kCols[] = {1, 5, 16, 17, 31, 32, 33, 64, 70};
  const int64_t kInner[] = {0, 1, 13, 64};
  for (int64_t rows : kRows)
    for (int64_t cols : kCols)
      for (int64_t inner : kInner) {
        const int64_t lda = inner + 3, ldb = cols + 5, ldc = cols + 2;
        std::vector<float> a(size_t(rows * lda)), b(size_t(std::max<int64_t>(inner, 1) * ldb));
        for (float& v : a) v = dist(rng);
        for (float& v : b) v = dist(rng);
        std::vector<float> c(size_t(rows * ldc), 42.f);
        const float scale = 0.37f;
        fn(a.data(), lda, b.data(), ldb, c.data(), ldc, rows, cols, inner, scale);
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t j = 0; j < cols; ++j) {
            double want = 0;
            for (int64_t t = 0; t < inner; ++t) want += double(a[size_t(r * lda + t)]) * double(b[size_t(t * ldb + j)]);
            want *= scale;
            ASSERT_NEAR(c[size_t(r * ldc + j)], want, 1e-5 * (1 + double(inner)))
                << rows << "x" << cols << "x" << inner << " at " << r << "," << j;
          }
          for (int64_t j = cols; j < ldc; ++j)
            ASSERT_EQ(c[size_t(r * ldc + j)], 42.f) << "wrote past the block at " << r << "," << j;
        }
      }
}

TEST(SmallMatMul, DispatchedFormMatchesTheReference) { check_shapes(small_matmul); }

TEST(SmallMatMul, PortableFormMatchesTheReference) { check_shapes(small_matmul_portable); }

}  // namespace
}  // namespace onyx
