// vec::row_dots and vec::weighted_row_sum (attention rows of the decoding kernels) against double
// loops: row lengths below, at and above the 16- and 32-float steps, a row stride wider than the
// row (a cache of more positions than are read), and nothing written past the rows asked for.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/vector_math.h"

namespace onyx {
namespace {

TEST(VectorMath, RowDotsAreEachRowsDotWithQ) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (int64_t n : {1, 15, 16, 17, 31, 32, 33, 64, 80, 100}) {
    const int64_t rows = 7, ld = n + 3;
    std::vector<float> q(static_cast<size_t>(n)), m(static_cast<size_t>(rows * ld)), out(static_cast<size_t>(rows + 1), -5.f);
    for (float& v : q) v = dist(rng);
    for (float& v : m) v = dist(rng);
    vec::row_dots(q.data(), m.data(), rows, ld, n, out.data());
    for (int64_t j = 0; j < rows; ++j) {
      double want = 0;
      for (int64_t i = 0; i < n; ++i) want += double(q[size_t(i)]) * double(m[size_t(j * ld + i)]);
      EXPECT_NEAR(out[size_t(j)], want, 1e-5 * (1 + n)) << "n=" << n << " row " << j;
    }
    EXPECT_EQ(out[size_t(rows)], -5.f) << "written past the rows, n=" << n;
  }
}

TEST(VectorMath, WeightedRowSumAddsTheWeightedRows) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (int64_t rows : {0, 1, 5, 200})
    for (int64_t n : {1, 16, 64, 70}) {
      const int64_t ld = n + 2;
      std::vector<float> w(static_cast<size_t>(rows)), m(static_cast<size_t>(rows * ld)), out(static_cast<size_t>(n + 1), 9.f);
      for (float& v : w) v = dist(rng);
      for (float& v : m) v = dist(rng);
      vec::weighted_row_sum(w.data(), m.data(), rows, ld, n, out.data());
      for (int64_t i = 0; i < n; ++i) {
        double want = 0;
        for (int64_t j = 0; j < rows; ++j) want += double(w[size_t(j)]) * double(m[size_t(j * ld + i)]);
        EXPECT_NEAR(out[size_t(i)], want, 1e-5 * (1 + rows)) << "rows=" << rows << " n=" << n << " at " << i;
      }
      EXPECT_EQ(out[size_t(n)], 9.f) << "written past n";
    }
}

}  // namespace
}  // namespace onyx
