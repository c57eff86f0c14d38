// onednn::MatMul with a b that is not packed (a training step's weights and gradients): every
// layout it routes to oneDNN's sgemm (b as stored, a as stored or transposed, a's batch folded
// into its rows) and every one it leaves to the matmul primitive (b transposed, a transposed
// over a power-of-two number of rows, batched b, transposed a with a batch), against a float64
// loop, with alpha and with accumulation into y.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
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

// Rounds to bfloat16, to nearest even, as oneDNN rounds a bf16 product's operands.
double bf16_rounded(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

// A few rows against constant weights packed by oneDNN (decoding): row_times_panels reads the
// packed panels where the layout allows, with a tail of rows (K odd, not a multiple of 16), a
// partial last panel (N not a multiple of 64), b packed from its transposed storage, bias,
// alpha, accumulation and the GELU activations, for 1 to 4 rows (1 with bf16 weights); five
// rows (two with bf16) stay with oneDNN. Every result
// against a float64 loop; with weights packed as bfloat16 (where the CPU has it) the loop takes
// the operands rounded to bf16.
void check_few_row_products(bool bf16) {
  struct Packed {
    int64_t k, n;
    bool trans_b;
  };
  const Packed shapes[] = {{37, 100, false}, {768, 200, false}, {64, 64, false}, {1, 65, false}, {130, 1, false}, {33, 130, true}};
  const bool panels_expected =
      bf16 ? __builtin_cpu_supports("avx512bf16") != 0 : __builtin_cpu_supports("avx512f") != 0;
  auto op = [&](float v) { return bf16 ? bf16_rounded(v) : double(v); };
  for (const Packed& sh : shapes) {
    SCOPED_TRACE(::testing::Message() << "k " << sh.k << " n " << sh.n << " trans_b " << sh.trans_b);
    std::mt19937 rng(unsigned(sh.k * 7 + sh.n));
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    std::vector<float> b(size_t(sh.k * sh.n)), x(size_t(5 * sh.k)), bias(size_t(sh.n));
    for (float& v : b) v = dist(rng);
    for (float& v : x) v = dist(rng);
    for (float& v : bias) v = dist(rng);
    // B[t][j] whatever the storage.
    auto weight = [&](int64_t t, int64_t j) { return op(sh.trans_b ? b[size_t(j * sh.k + t)] : b[size_t(t * sh.n + j)]); };
    const std::vector<int64_t> b_dims = sh.trans_b ? std::vector<int64_t>{sh.n, sh.k} : std::vector<int64_t>{sh.k, sh.n};
    auto packed = onednn::MatMul::pack_b(b.data(), b_dims, sh.trans_b, 128, bf16);
    ASSERT_TRUE(packed.ok());

    struct Variant {
      onednn::MatMulEpilogue e;
      const char* name;
    };
    std::vector<Variant> variants(6);
    variants[0].name = "plain";
    variants[1].e.alpha = -0.5f, variants[1].name = "alpha";
    variants[2].e.accumulate = true, variants[2].name = "accumulate";
    variants[3].e.bias = true, variants[3].name = "bias";
    variants[4].e.bias = true, variants[4].e.activation = dnnl::algorithm::eltwise_gelu_erf, variants[4].name = "bias+gelu";
    variants[5].e.bias = true, variants[5].e.activation = dnnl::algorithm::eltwise_gelu_tanh, variants[5].name = "bias+fastgelu";
    for (const Variant& v : variants) {
      SCOPED_TRACE(v.name);
      onednn::MatMul mm(v.e);
      mm.use_packed_b(*packed);
      for (int64_t rows : {1, 2, 3, 4, 5}) {
        std::vector<float> y(size_t(rows * sh.n));
        for (float& o : y) o = v.e.accumulate ? dist(rng) : 1e30f;
        const std::vector<float> y0 = y;
        const int64_t before = onednn::row_panel_products();
        ASSERT_TRUE(mm.run({{1, rows, sh.k}, {1, b_dims[0], b_dims[1]}, false, sh.trans_b}, x.data(), nullptr,
                           bias.data(), y.data())
                        .ok());
        const int64_t via_panels = onednn::row_panel_products() - before;
        const int64_t most_rows = bf16 ? 1 : onednn::kMaxPanelRows;
        EXPECT_EQ(via_panels, rows <= most_rows && panels_expected ? 1 : 0) << rows << " rows";
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < sh.n; ++j) {
            double want = 0;
            for (int64_t t = 0; t < sh.k; ++t) want += op(x[size_t(i * sh.k + t)]) * weight(t, j);
            want *= v.e.alpha;
            if (v.e.bias) want += bias[size_t(j)];
            if (v.e.activation == dnnl::algorithm::eltwise_gelu_erf) want = 0.5 * want * (1 + std::erf(want / std::sqrt(2.0)));
            if (v.e.activation == dnnl::algorithm::eltwise_gelu_tanh)
              want = 0.5 * want * (1 + std::tanh(0.7978845608028654 * (want + 0.044715 * want * want * want)));
            const size_t o = size_t(i * sh.n + j);
            if (v.e.accumulate) want += y0[o];
            ASSERT_NEAR(y[o], want, 2e-5 * (1 + double(sh.k))) << "row " << i << " col " << j;
          }
      }
    }
  }
}

TEST(OneDnnMatMul, FewRowsAgainstPackedWeightsMatchAPlainLoop) { check_few_row_products(false); }

TEST(OneDnnMatMul, OneRowAgainstBf16PackedWeightsMatchesAPlainLoop) {
  if (!onednn::bf16_products_available()) GTEST_SKIP() << "this CPU has no native bfloat16 products";
  check_few_row_products(true);
}

}  // namespace
}  // namespace onyx
