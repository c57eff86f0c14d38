// Int8Panels (VNNI products for the quantised MatMuls): exact int32 sums against a plain loop
// over the shapes at the edges of its blocking (rows 1..9 around the 4-row step; K not a
// multiple of 4; N around the 16-column panels and 4-panel steps), with extreme values
// (255 x -128) that exercise the widest products; skipped where the CPU lacks AVX-512 VNNI.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/parallel.h"
#include "kernels/int8_panels.h"

namespace onyx {
namespace {

TEST(Int8Panels, SumsEqualAPlainLoop) {
  if (!Int8Panels::available()) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  std::mt19937 rng(3);
  for (int64_t rows : {1, 2, 3, 4, 5, 9})
    for (int64_t k : {1, 3, 4, 64, 67})
      for (int64_t n : {1, 15, 16, 17, 64, 70, 130}) {
        std::vector<uint8_t> a(size_t(rows * k));
        std::vector<int8_t> b(size_t(k * n));
        for (auto& v : a) v = uint8_t(rng());
        for (auto& v : b) v = int8_t(rng());
        a[0] = 255;
        b[0] = -128;
        Int8Panels panels;
        panels.pack(b.data(), k, n);
        ASSERT_EQ(panels.k(), k);
        ASSERT_EQ(panels.n(), n);
        std::vector<int32_t> acc(size_t(rows * n), 12345);
        panels.multiply(a.data(), rows, acc.data());
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < n; ++j) {
            int32_t want = 0;
            for (int64_t t = 0; t < k; ++t) want += int32_t(a[size_t(r * k + t)]) * int32_t(b[size_t(t * n + j)]);
            ASSERT_EQ(acc[size_t(r * n + j)], want) << "rows=" << rows << " k=" << k << " n=" << n << " at " << r << "," << j;
          }
      }
}

TEST(Int8Panels, SameSumsOnOneAndTwoThreads) {
  if (!Int8Panels::available()) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  std::mt19937 rng(4);
  const int64_t k = 768, n = 1000;
  std::vector<uint8_t> a(static_cast<size_t>(k));
  std::vector<int8_t> b(size_t(k * n));
  for (auto& v : a) v = uint8_t(rng());
  for (auto& v : b) v = int8_t(rng());
  Int8Panels panels;
  panels.pack(b.data(), k, n);
  std::vector<int32_t> one(static_cast<size_t>(n)), two(static_cast<size_t>(n));
  set_intra_op_threads(1);
  panels.multiply(a.data(), 1, one.data());
  set_intra_op_threads(2);
  panels.multiply(a.data(), 1, two.data());
  set_intra_op_threads(0);
  EXPECT_EQ(one, two);
}

}  // namespace
}  // namespace onyx
