// depthwise_rows (InvertedResidual's depthwise stage): the AVX-512 and portable forms against
// a float64 reference, over geometries that reach every path: 3x3 at strides 1 and 2 (the
// input-reusing groups of 8, 4, 2 and 1), other windows (the general groups), rows narrower
// than the window, channel counts off the 16-lane blocks, pads on every side, padding rows at
// the top and bottom, a band that holds only the rows it needs, clamps and NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/depthwise_rows.h"

namespace onyx {
namespace {

using DepthwiseFn = void (*)(const DepthwiseGeometry&, const float*, int64_t, const float*, const float*, int64_t,
                             int64_t, float*, float, float);

struct Case {
  int64_t in_h, in_w, channels, kh, kw, sh, sw, pt, pl, pb, pr;
};

double reference(const Case& k, const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b,
                 int64_t r, int64_t ow, int64_t c) {
  double sum = b[size_t(c)];
  for (int64_t i = 0; i < k.kh; ++i)
    for (int64_t j = 0; j < k.kw; ++j) {
      const int64_t ih = r * k.sh - k.pt + i, iw = ow * k.sw - k.pl + j;
      if (ih < 0 || ih >= k.in_h || iw < 0 || iw >= k.in_w) continue;
      sum += double(x[size_t((ih * k.in_w + iw) * k.channels + c)]) * double(w[size_t((c * k.kh + i) * k.kw + j)]);
    }
  return sum;
}

void check(DepthwiseFn fn, const Case& k, float lo, float hi) {
  std::mt19937 rng(uint32_t(k.in_h * 131 + k.in_w * 7 + k.channels));
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> x(size_t(k.in_h * k.in_w * k.channels)), w(size_t(k.channels * k.kh * k.kw)), b(size_t(k.channels));
  for (float& v : x) v = dist(rng);
  for (float& v : w) v = dist(rng);
  for (float& v : b) v = dist(rng);
  const int64_t out_h = (k.in_h + k.pt + k.pb - k.kh) / k.sh + 1, out_w = (k.in_w + k.pl + k.pr - k.kw) / k.sw + 1;
  DepthwiseGeometry g{k.in_h, k.in_w, out_w, k.channels, k.kh, k.kw, k.sh, k.sw, k.pt, k.pl};
  const std::vector<float> taps = depthwise_taps(w.data(), k.channels, k.kh, k.kw);
  // Rows [1, out_h) from a copy of only the input rows they read, the way bands call it.
  const int64_t r0 = out_h > 1 ? 1 : 0;
  const int64_t first_row = std::max<int64_t>(0, r0 * k.sh - k.pt);
  std::vector<float> held(x.begin() + first_row * k.in_w * k.channels, x.end());
  std::vector<float> y(size_t((out_h - r0) * out_w * k.channels + 5), 42.f);
  fn(g, held.data(), first_row, taps.data(), b.data(), r0, out_h, y.data(), lo, hi);
  for (int64_t r = r0; r < out_h; ++r)
    for (int64_t ow = 0; ow < out_w; ++ow)
      for (int64_t c = 0; c < k.channels; ++c) {
        const double want = std::min<double>(std::max<double>(reference(k, x, w, b, r, ow, c), lo), hi);
        ASSERT_NEAR(y[size_t(((r - r0) * out_w + ow) * k.channels + c)], want, 1e-5)
            << "in " << k.in_h << "x" << k.in_w << "x" << k.channels << " window " << k.kh << "x" << k.kw << " stride "
            << k.sh << "," << k.sw << " row " << r << " col " << ow << " channel " << c;
      }
  for (size_t i = y.size() - 5; i < y.size(); ++i) ASSERT_EQ(y[i], 42.f) << "wrote past the rows";
}

const Case kCases[] = {
    {9, 23, 16, 3, 3, 1, 1, 1, 1, 1, 1},   // stride 1: groups of 8, 4, 2, 1 and both edges
    {12, 37, 40, 3, 3, 2, 2, 1, 1, 1, 1},  // stride 2, channels 16 + 16 + 8
    {7, 20, 5, 3, 3, 2, 2, 0, 0, 1, 1},    // pads at the end only; fewer than 16 channels
    {6, 11, 33, 3, 3, 1, 1, 2, 0, 0, 2},   // asymmetric pads
    {5, 2, 24, 3, 3, 1, 1, 1, 1, 1, 1},    // a row narrower than the window
    {10, 30, 20, 5, 5, 1, 1, 2, 2, 2, 2},  // 5x5: the general groups
    {9, 17, 16, 3, 5, 2, 1, 1, 2, 1, 2},   // 3x5, mixed strides
    {8, 19, 48, 3, 3, 3, 3, 1, 1, 1, 1},   // stride 3: the general groups
    {4, 4, 16, 1, 1, 1, 1, 0, 0, 0, 0},    // 1x1
};

TEST(DepthwiseRows, MatchesTheReference) {
  const float inf = std::numeric_limits<float>::infinity();
  for (const Case& k : kCases) {
    check(depthwise_rows, k, -inf, inf);
    check(depthwise_rows_portable, k, -inf, inf);
    check(depthwise_rows, k, 0.f, 6.f);  // Relu6
    check(depthwise_rows_portable, k, -0.5f, 0.25f);
  }
}

TEST(DepthwiseRows, NanPassesThroughTheClamp) {
  const int64_t c = 32;
  std::vector<float> x(size_t(3 * 10 * c), 1.f), w(size_t(c * 9), 0.5f);
  x[size_t((1 * 10 + 4) * c + 3)] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> taps = depthwise_taps(w.data(), c, 3, 3);
  DepthwiseGeometry g{3, 10, 10, c, 3, 3, 1, 1, 1, 1};
  for (DepthwiseFn fn : {DepthwiseFn(depthwise_rows), DepthwiseFn(depthwise_rows_portable)}) {
    std::vector<float> y(size_t(3 * 10 * c));
    fn(g, x.data(), 0, taps.data(), nullptr, 0, 3, y.data(), 0.f, 6.f);
    EXPECT_TRUE(std::isnan(y[size_t((1 * 10 + 4) * c + 3)]));
    EXPECT_TRUE(std::isnan(y[size_t((0 * 10 + 5) * c + 3)]));  // a neighbour whose window holds it
    EXPECT_FALSE(std::isnan(y[size_t((1 * 10 + 4) * c + 4)]));  // another channel
    EXPECT_EQ(y[size_t((1 * 10 + 1) * c + 3)], 4.5f);          // 9 taps of 0.5 on ones
  }
}

}  // namespace
}  // namespace onyx
