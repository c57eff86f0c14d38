// nbits_matmul (MatMulNBits's packed products): the vector and portable forms against a float64
// product with the dequantised weights, over the shapes at the edges: K not a multiple of the
// block (codes past K set to junk that must be ignored), one row (decoding) and more, N not a
// multiple of the 4 rows of W the vector kernel takes at a time; 2, 4 and 8 bits; zero points
// absent, one byte a block, and float.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/parallel.h"
#include "kernels/nbits_matmul.h"
#include "nbits_test_util.h"

namespace onyx {
namespace {

using namespace nbits_test;  // NOLINT: the shared cases and checks

const Case kCases[] = {
    {1, 32, 4, 32, Zeros::kDefault},  {70, 96, 4, 32, Zeros::kCodes},   {130, 100, 4, 32, Zeros::kCodes},
    {65, 200, 4, 64, Zeros::kFloats}, {33, 256, 4, 128, Zeros::kDefault}, {17, 50, 4, 16, Zeros::kCodes},
    {40, 77, 2, 32, Zeros::kCodes},   {40, 77, 8, 16, Zeros::kDefault},  {64, 300, 8, 128, Zeros::kFloats},
    // 16 blocks or more (the zero-point terms go 16 blocks a vector), odd and even counts
    {37, 640, 4, 32, Zeros::kCodes},  {6, 544, 4, 32, Zeros::kDefault},  {5, 1100, 4, 64, Zeros::kFloats},
};

TEST(NBitsMatMul, VectorFormMatchesDequantisedProduct) {
  for (const Case& c : kCases)
    for (int64_t rows : {1, 2, 3, 4, 9, 40}) check(nbits_matmul, c, rows);
}

TEST(NBitsMatMul, PortableFormMatchesDequantisedProduct) {
  for (const Case& c : kCases)
    for (int64_t rows : {1, 3, 4, 9}) check(nbits_matmul_portable, c, rows);
}

TEST(NBitsMatMul, Int8ActivationsFollowTheirContract) {
  for (const Case& c : kCases)
    for (int64_t rows : {1, 2}) {
      check_int8(nbits_matmul_int8_activations, c, rows);
      check_int8(nbits_matmul_int8_activations_portable, c, rows);
    }
}

TEST(NBitsMatMul, SameResultOnOneAndTwoThreads) {
  const Case c{300, 256, 4, 32, Zeros::kCodes};
  std::mt19937 rng(5);
  const Packed p = make_weights(c, rng);
  std::vector<float> a(size_t(c.k));
  for (float& v : a) v = float(int(rng() % 200) - 100) / 64.f;
  std::vector<float> one(size_t(c.n)), two(size_t(c.n));
  set_intra_op_threads(1);
  nbits_matmul(p.w, a.data(), 1, one.data());
  set_intra_op_threads(2);
  nbits_matmul(p.w, a.data(), 1, two.data());
  set_intra_op_threads(0);
  EXPECT_EQ(one, two);  // each output is one thread's sum in a fixed order
}

TEST(NBitsMatMul, DequantizeRowsIsTheWeight) {
  for (const Case& c : {Case{20, 70, 4, 32, Zeros::kCodes}, Case{9, 200, 4, 64, Zeros::kFloats}, Case{9, 50, 2, 16, Zeros::kDefault}}) {
    std::mt19937 rng(9);
    const Packed p = make_weights(c, rng);
    const int64_t ld = c.k + 3;
    std::vector<float> out(size_t(c.n * ld), -7.f);
    nbits_dequantize_rows(p.w, 2, 8, out.data(), ld);
    for (int64_t r = 0; r < c.n; ++r)
      for (int64_t t = 0; t < ld; ++t) {
        const float got = out[size_t(r * ld + t)];
        if (r < 6 && t < c.k)
          ASSERT_NEAR(got, weight(p.w, 2 + r, t), 1e-6) << r << "," << t;
        else
          ASSERT_EQ(got, -7.f) << "written outside the rows asked for: " << r << "," << t;
      }
  }
}

}  // namespace
}  // namespace onyx
