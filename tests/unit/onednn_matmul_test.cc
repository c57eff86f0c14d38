// onednn::MatMul with a b that is not packed (a training step's weights and gradients): every
// layout it routes to oneDNN's sgemm (b as stored, a as stored or transposed, a's batch folded
// into its rows) and every one it leaves to the matmul primitive (b transposed, a transposed
// over a power-of-two number of rows, batched b, transposed a with a batch), against a float64
// loop, with alpha and with accumulation into y.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/onednn_matmul.h"

namespace onyx {
namespace {

struct Case {
  std::vector<int64_t> a, b;  // as stored
  bool trans_a, trans_b;
};

// Element (i, t) of op(x) for item `item` of a [items, rows, cols] stored operand.
double at(const std::vector<float>& x, const std::vector<int64_t>& dims, bool trans, int64_t item, int64_t i, int64_t t) {
  const size_t r = dims.size();
  const int64_t rows = dims[r - 2], cols = dims[r - 1];
  const int64_t base = item * rows * cols;
  return trans ? x[size_t(base + t * cols + i)] : x[size_t(base + i * cols + t)];
}

void check(const Case& c, const onednn::MatMulEpilogue& e) {
  const size_t r = c.a.size();
  const int64_t m = c.trans_a ? c.a[r - 1] : c.a[r - 2], k = c.trans_a ? c.a[r - 2] : c.a[r - 1];
  const int64_t n = c.trans_b ? c.b[r - 2] : c.b[r - 1];
  int64_t a_items = 1, b_items = 1;
  for (size_t i = 0; i + 2 < r; ++i) {
    a_items *= c.a[i];
    b_items *= c.b[i];
  }
  const int64_t items = std::max(a_items, b_items);  // the cases broadcast one side whole
  std::mt19937 rng(unsigned(m * 131 + n * 17 + k + items + (c.trans_a ? 7 : 0) + (c.trans_b ? 3 : 0)));
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> a(size_t(a_items * m * k)), b(size_t(b_items * k * n)), y(size_t(items * m * n));
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  for (float& v : y) v = e.accumulate ? dist(rng) : 1e30f;
  const std::vector<float> y0 = y;
  onednn::MatMul mm(e);
  ASSERT_TRUE(mm.run({c.a, c.b, c.trans_a, c.trans_b}, a.data(), b.data(), nullptr, y.data()).ok());
  for (int64_t item = 0; item < items; ++item)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t t = 0; t < k; ++t)
          want += at(a, c.a, c.trans_a, a_items == 1 ? 0 : item, i, t) * at(b, c.b, c.trans_b, b_items == 1 ? 0 : item, t, j);
        want *= e.alpha;
        const size_t o = size_t((item * m + i) * n + j);
        if (e.accumulate) want += y0[o];
        ASSERT_NEAR(y[o], want, 1e-5 * (1 + double(k))) << "item " << item << " row " << i << " col " << j;
      }
}

TEST(OneDnnMatMul, UnpackedProductsMatchAPlainLoopInEveryLayout) {
  const Case cases[] = {
      {{37, 53}, {53, 29}, false, false},             // plain: sgemm
      {{3, 5, 40}, {1, 40, 70}, false, false},        // a's batch folded into its rows: sgemm
      {{1, 1, 9, 33}, {1, 1, 33, 17}, false, false},  // batch of ones
      {{64, 48}, {64, 20}, true, false},              // a transposed (weight gradient): sgemm
      {{24, 512}, {24, 40}, true, false},             // a transposed over 512 rows: primitive
      {{70, 19}, {33, 19}, false, true},              // b transposed: primitive
      {{2, 6, 11}, {2, 11, 5}, false, false},         // batched b: primitive
      {{2, 11, 6}, {1, 11, 5}, true, false},          // transposed a with a batch: primitive
      {{1, 300}, {300, 1}, false, false},             // one row, one column
  };
  onednn::MatMulEpilogue scaled;
  scaled.alpha = 0.25f;
  onednn::MatMulEpilogue accumulate;
  accumulate.accumulate = true;
  onednn::MatMulEpilogue scaled_accumulate = accumulate;
  scaled_accumulate.alpha = -1.5f;
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "a " << c.a.size() << "-D trans_a " << c.trans_a << " trans_b " << c.trans_b
                                      << " rows " << (c.trans_a ? c.a.back() : c.a[c.a.size() - 2]));
    check(c, onednn::MatMulEpilogue{});
    check(c, scaled);
    check(c, accumulate);
    check(c, scaled_accumulate);
  }
}

}  // namespace
}  // namespace onyx
