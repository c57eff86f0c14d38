// small_batched_matmul (tiny products that skip oneDNN): against a float64 loop for both forms of
// B (as stored and transposed), batch dims equal and broadcast either way, rows 1 to 4, an empty
// inner dim; and the shapes it must leave to oneDNN (transposed A, large items) untouched.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/small_products.h"

namespace onyx {
namespace {

struct Case {
  std::vector<int64_t> a, b;
  bool trans_b;
};

void check(const Case& c, float alpha) {
  const size_t r = c.a.size();
  const int64_t m = c.a[r - 2], k = c.a[r - 1], n = c.trans_b ? c.b[r - 2] : c.b[r - 1];
  std::vector<int64_t> batch;
  int64_t items = 1, a_items = 1, b_items = 1;
  for (size_t i = 0; i + 2 < r; ++i) {
    batch.push_back(std::max(c.a[i], c.b[i]));
    items *= batch.back();
    a_items *= c.a[i];
    b_items *= c.b[i];
  }
  std::mt19937 rng(unsigned(m * 31 + n * 7 + k + items));
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> a(size_t(a_items * m * k)), b(size_t(b_items * k * n)), y(size_t(items * m * n), 1e30f);
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  const onednn::MatMulShape shape{c.a, c.b, false, c.trans_b};
  ASSERT_TRUE(small_batched_matmul(shape, alpha, a.data(), b.data(), y.data()));
  for (int64_t item = 0; item < items; ++item) {
    int64_t rest = item, ai = 0, bi = 0, as = 1, bs = 1;
    for (size_t d = batch.size(); d-- > 0;) {
      const int64_t at = rest % batch[d];
      rest /= batch[d];
      ai += (c.a[d] == 1 ? 0 : at) * as;
      bi += (c.b[d] == 1 ? 0 : at) * bs;
      as *= c.a[d];
      bs *= c.b[d];
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t t = 0; t < k; ++t) {
          const double bv = c.trans_b ? b[size_t(bi * k * n + j * k + t)] : b[size_t(bi * k * n + t * n + j)];
          want += double(a[size_t(ai * m * k + i * k + t)]) * bv;
        }
        ASSERT_NEAR(y[size_t(item * m * n + i * n + j)], alpha * want, 1e-5 * (1 + double(k))) << item << "," << i << "," << j;
      }
  }
}

TEST(SmallBatchedMatMul, MatchesAPlainLoop) {
  const Case cases[] = {
      {{1, 12, 1, 64}, {1, 12, 37, 64}, true},   // a query row times K^T of a cache
      {{1, 12, 1, 37}, {1, 12, 37, 64}, false},  // the weights times V
      {{2, 3, 4, 20}, {2, 3, 20, 5}, false},     // four rows
      {{1, 3, 2, 17}, {2, 1, 17, 33}, false},    // broadcast both ways
      {{2, 1, 3, 33}, {1, 3, 40, 33}, true},
      {{4, 1}, {1, 9}, false},                   // rank 2
      {{1, 2, 1, 0}, {1, 2, 0, 6}, false},       // empty inner dim: zeros
  };
  for (const Case& c : cases) {
    check(c, 1.f);
    check(c, 0.125f);
  }
}

TEST(SmallBatchedMatMul, LeavesLargeOrTransposedAToOneDnn) {
  std::vector<float> buf(1 << 20, 0.f), y(1 << 20, 7.f);
  EXPECT_FALSE(small_batched_matmul({{1, 8, 128, 64}, {1, 8, 64, 128}, false, false}, 1.f, buf.data(), buf.data(), y.data()));
  EXPECT_FALSE(small_batched_matmul({{1, 64, 2}, {1, 64, 3}, true, false}, 1.f, buf.data(), buf.data(), y.data()));
  EXPECT_EQ(y[0], 7.f);
}

}  // namespace
}  // namespace onyx
