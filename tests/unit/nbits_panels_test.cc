// NBitsPanels (4- and 8-bit MatMulNBits weights repacked 16 rows at a time for decoding): both products
// against the same references as nbits_matmul's (a float64 product with the dequantised
// weights; the int8-activation contract), over N not a multiple of 16 (the padded last group),
// K not a multiple of the block (junk codes past K), blocks of 32, 64 and 128, 4 and 8 bits, zero
// points absent, one byte a block and float, and 1 to 9 rows (passes of 4 and a rest); the dequantised rows equal nbits_dequantize_rows' on the
// original packing, and transposed (a prompt's tiles); one and two threads agree.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/parallel.h"
#include "kernels/nbits_matmul.h"
#include "kernels/nbits_panels.h"
#include "nbits_test_util.h"

namespace onyx {
namespace {

using namespace nbits_test;  // NOLINT: the shared cases and checks

const Case kPanelCases[] = {
    {1, 32, 4, 32, Zeros::kDefault},   {16, 32, 4, 32, Zeros::kCodes},    {70, 96, 4, 32, Zeros::kCodes},
    {130, 100, 4, 32, Zeros::kCodes},  {33, 256, 4, 128, Zeros::kDefault}, {50, 200, 4, 64, Zeros::kCodes},
    {17, 300, 4, 128, Zeros::kCodes},  {37, 640, 4, 32, Zeros::kCodes},   {6, 544, 4, 32, Zeros::kDefault},
    {48, 768, 4, 32, Zeros::kDefault}, {65, 200, 4, 64, Zeros::kFloats},  {21, 77, 8, 32, Zeros::kDefault},
    {40, 100, 8, 32, Zeros::kCodes},   {64, 300, 8, 128, Zeros::kFloats}, {17, 640, 8, 64, Zeros::kCodes},
};

void panels_float(const NBitsWeights& w, const float* a, int64_t rows, float* y) { NBitsPanels(w).multiply(a, rows, y); }

void panels_int8(const NBitsWeights& w, const float* a, int64_t rows, float* y) {
  NBitsPanels(w).multiply_int8_activations(a, rows, y);
}

bool vnni_here() {
  std::mt19937 rng(1);
  const Packed p = make_weights(Case{16, 32, 4, 32, Zeros::kDefault}, rng);
  return NBitsPanels::supports(p.w);
}

TEST(NBitsPanels, TakesFourAndEightBitsInBlocksOf32) {
  if (!vnni_here()) GTEST_SKIP() << "no AVX-512 VNNI here";
  std::mt19937 rng(2);
  EXPECT_TRUE(NBitsPanels::supports(make_weights(Case{5, 64, 4, 64, Zeros::kCodes}, rng).w));
  EXPECT_TRUE(NBitsPanels::supports(make_weights(Case{5, 64, 4, 64, Zeros::kFloats}, rng).w));
  EXPECT_TRUE(NBitsPanels::supports(make_weights(Case{5, 64, 8, 64, Zeros::kCodes}, rng).w));
  EXPECT_FALSE(NBitsPanels::supports(make_weights(Case{5, 64, 4, 16, Zeros::kCodes}, rng).w));
  EXPECT_FALSE(NBitsPanels::supports(make_weights(Case{5, 64, 2, 64, Zeros::kCodes}, rng).w));
}

TEST(NBitsPanels, FloatProductMatchesDequantisedProduct) {
  if (!vnni_here()) GTEST_SKIP() << "no AVX-512 VNNI here";
  for (const Case& c : kPanelCases)
    for (int64_t rows : {1, 2, 3, 4, 5, 7, 9}) check(panels_float, c, rows);  // passes of 4 rows and a rest
}

TEST(NBitsPanels, Int8ActivationsFollowTheirContract) {
  if (!vnni_here()) GTEST_SKIP() << "no AVX-512 VNNI here";
  for (const Case& c : kPanelCases)
    for (int64_t rows : {1, 2, 3, 4, 5, 7, 9}) check_int8(panels_int8, c, rows);
}

TEST(NBitsPanels, DequantizedRowsEqualTheOriginalPackings) {
  if (!vnni_here()) GTEST_SKIP() << "no AVX-512 VNNI here";
  for (const Case& c : {Case{40, 100, 4, 32, Zeros::kCodes}, Case{21, 256, 4, 128, Zeros::kDefault},
                        Case{30, 200, 4, 64, Zeros::kFloats}, Case{35, 100, 8, 32, Zeros::kCodes}}) {
    std::mt19937 rng(9);
    const Packed p = make_weights(c, rng);
    const NBitsPanels panels(p.w);
    const int64_t ld = c.k + 5, begin = 3, end = c.n - 1;
    std::vector<float> got(size_t((end - begin) * ld), -7.f), want(got);
    panels.dequantize_rows(begin, end, got.data(), ld);
    nbits_dequantize_rows(p.w, begin, end, want.data(), ld);
    EXPECT_EQ(got, want);  // the same arithmetic on the same codes, and nothing written past K
  }
}

TEST(NBitsPanels, DequantizedColumnsAreTheRowsTransposed) {
  if (!vnni_here()) GTEST_SKIP() << "no AVX-512 VNNI here";
  for (const Case& c : {Case{40, 100, 4, 32, Zeros::kCodes}, Case{37, 256, 4, 128, Zeros::kDefault},
                        Case{33, 96, 8, 32, Zeros::kFloats}}) {
    std::mt19937 rng(11);
    const Packed p = make_weights(c, rng);
    const NBitsPanels panels(p.w);
    const int64_t begin = 16, end = c.n, cols = end - begin, ld = cols + 2;  // a partial last group of 16
    std::vector<float> rows(static_cast<size_t>(cols * c.k)), got(static_cast<size_t>(c.k * ld), -7.f);
    panels.dequantize_rows(begin, end, rows.data(), c.k);
    panels.dequantize_columns(begin, end, got.data(), ld);
    for (int64_t t = 0; t < c.k; ++t)
      for (int64_t i = 0; i < ld; ++i) {
        const float g = got[size_t(t * ld + i)];
        if (i >= cols) {
          ASSERT_EQ(g, -7.f) << "written past the columns: t=" << t << " column " << i;
          continue;
        }
        // code * scale - zero * scale, fused here; the rows' form may round the product first:
        // an ulp of code * scale (at most 255 * 0.2 here) apart
        ASSERT_NEAR(g, rows[size_t(i * c.k + t)], 1e-5f) << "t=" << t << " column " << i;
      }
  }
}

TEST(NBitsPanels, SameResultOnOneAndTwoThreads) {
  if (!vnni_here()) GTEST_SKIP() << "no AVX-512 VNNI here";
  std::mt19937 rng(5);
  const Packed p = make_weights(Case{300, 256, 4, 32, Zeros::kCodes}, rng);
  const NBitsPanels panels(p.w);
  std::vector<float> a(size_t(2 * 256));
  for (float& v : a) v = float(int(rng() % 200) - 100) / 64.f;
  for (bool int8 : {false, true}) {
    std::vector<float> one(size_t(2 * 300)), two(one.size());
    set_intra_op_threads(1);
    int8 ? panels.multiply_int8_activations(a.data(), 2, one.data()) : panels.multiply(a.data(), 2, one.data());
    set_intra_op_threads(2);
    int8 ? panels.multiply_int8_activations(a.data(), 2, two.data()) : panels.multiply(a.data(), 2, two.data());
    set_intra_op_threads(0);
    EXPECT_EQ(one, two) << (int8 ? "int8" : "float");  // each group of 16 is one thread's, in a fixed order
  }
}

}  // namespace
}  // namespace onyx
