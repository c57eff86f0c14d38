// floats_to_bf16 (rounding to nearest even, ties and NaN, the vector body and its scalar tail)
// and onednn::Bf16MatMul (b as stored and transposed) against a float64 loop over the bf16 values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/onednn_bf16_matmul.h"
#include "kernels/onednn_matmul.h"

namespace onyx {
namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

double widen(uint16_t h) { return from_bits(uint32_t(h) << 16); }

TEST(Bf16Conversion, RoundsToNearestEvenInTheVectorBodyAndTheTail) {
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: even (1) wins; 1 + 3 * 2^-8 rounds up to the
  // even 1 + 2^-6; just above a half rounds up; negative values mirror.
  const std::vector<std::pair<float, uint16_t>> cases = {
      {1.0f, 0x3f80},        {from_bits(0x3f808000), 0x3f80}, {from_bits(0x3f818000), 0x3f82},
      {from_bits(0x3f808001), 0x3f81}, {-1.0f, 0xbf80},        {from_bits(0xbf808000), 0xbf80},
      {0.0f, 0x0000},        {std::numeric_limits<float>::infinity(), 0x7f80}, {65504.0f, 0x4780}};
  // 70 values: two vector blocks of 32 and a tail of 6, every case in both.
  std::vector<float> x(70);
  std::vector<uint16_t> want(70);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = cases[i % cases.size()].first;
    want[i] = cases[i % cases.size()].second;
  }
  x[40] = std::numeric_limits<float>::quiet_NaN();
  x[67] = std::numeric_limits<float>::quiet_NaN();
  std::vector<uint16_t> y(x.size());
  onednn::floats_to_bf16(x.data(), y.data(), int64_t(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(widen(y[i]))) << i;
      continue;
    }
    EXPECT_EQ(y[i], want[i]) << "element " << i << " value " << x[i];
  }
}

TEST(Bf16MatMul, MatchesAFloat64LoopOverTheBf16Values) {
  if (!onednn::bf16_products_available()) GTEST_SKIP() << "this CPU has no native bfloat16 products";
  struct Shape {
    int64_t m, n, k;
    bool trans_b;
  };
  for (const Shape& s : {Shape{5, 33, 40, true}, Shape{17, 64, 96, false}, Shape{1, 7, 3, true}}) {
    SCOPED_TRACE(::testing::Message() << s.m << "x" << s.n << "x" << s.k << " trans_b " << s.trans_b);
    std::mt19937 rng(unsigned(s.m * 100 + s.n + s.k));
    std::uniform_real_distribution<float> dist(-2.f, 2.f);
    std::vector<float> a(size_t(s.m * s.k)), b(size_t(s.k * s.n));
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng);
    std::vector<uint16_t> a16(a.size()), b16(b.size());
    onednn::floats_to_bf16(a.data(), a16.data(), int64_t(a.size()));
    onednn::floats_to_bf16(b.data(), b16.data(), int64_t(b.size()));
    std::vector<float> y(size_t(s.m * s.n), 1e30f);
    onednn::Bf16MatMul mm;
    ASSERT_TRUE(mm.run(s.m, s.n, s.k, a16.data(), b16.data(), s.trans_b, y.data()).ok());
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j) {
        double want = 0;
        for (int64_t t = 0; t < s.k; ++t)
          want += widen(a16[size_t(i * s.k + t)]) * widen(s.trans_b ? b16[size_t(j * s.k + t)] : b16[size_t(t * s.n + j)]);
        ASSERT_NEAR(y[size_t(i * s.n + j)], want, 1e-4 * (1 + double(s.k))) << i << ", " << j;
      }
  }
  onednn::Bf16MatMul mm;
  uint16_t one = 0x3f80;
  float out = 0;
  EXPECT_FALSE(mm.run(0, 1, 1, &one, &one, false, &out).ok());
}

}  // namespace
}  // namespace onyx
