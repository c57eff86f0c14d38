// Winograd convolution (onednn_conv.cc): chosen for 3x3, stride-1, one-group convolutions with
// constant weights and outputs of at least 14x14, on CPUs where oneDNN has it; its results
// stay within 1e-4 of the output's largest magnitude of a float64 direct convolution, with
// bias, activation and a residual, for the channels-last layout the optimiser uses. Shapes it
// does not take compute directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kernels/onednn_conv.h"
#include "kernels/spatial.h"

namespace onyx {
namespace {

struct Problem {
  int64_t n, c, m, h, w, stride = 1;
};

// Channels-last float64 reference: y[n, oh, ow, m] = relu(sum x * w + b + z).
std::vector<double> reference(const Problem& p, const WindowGeometry& g, const std::vector<float>& x,
                              const std::vector<float>& w, const std::vector<float>& b, const std::vector<float>& z) {
  const int64_t oh = g.out[0], ow = g.out[1];
  std::vector<double> y(size_t(p.n * oh * ow * p.m));
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t m = 0; m < p.m; ++m) {
          double acc = b[size_t(m)];
          for (int64_t ki = 0; ki < 3; ++ki)
            for (int64_t kj = 0; kj < 3; ++kj) {
              const int64_t yi = i * p.stride - 1 + ki, xj = j * p.stride - 1 + kj;
              if (yi < 0 || yi >= p.h || xj < 0 || xj >= p.w) continue;
              for (int64_t c = 0; c < p.c; ++c)
                acc += double(x[size_t(((n * p.h + yi) * p.w + xj) * p.c + c)]) *
                       double(w[size_t(((m * p.c + c) * 3 + ki) * 3 + kj)]);
            }
          const size_t at = size_t(((n * oh + i) * ow + j) * p.m + m);
          y[at] = std::max(0.0, acc + double(z[at]));
        }
  return y;
}

struct Outcome {
  bool winograd = false;
  double error = 0;  // max |y - reference| / max |reference|
};

// Runs a constant-weight conv (the one that may use Winograd) on `p`, checks it against the
// reference, and returns whether Winograd ran and the normalised error.
Outcome run_problem(const Problem& p) {
  WindowAttrs attrs;
  attrs.kernel_shape = {3, 3};
  attrs.strides = {p.stride, p.stride};
  attrs.dilations = {1, 1};
  attrs.pads = {1, 1, 1, 1};
  auto g = resolve_window(attrs, {p.h, p.w}, {3, 3});
  EXPECT_TRUE(g.ok());
  if (!g.ok()) return {};
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.f, 1.f);
  auto fill = [&](size_t count) {
    std::vector<float> v(count);
    for (float& e : v) e = normal(rng);
    return v;
  };
  const std::vector<float> x = fill(size_t(p.n * p.h * p.w * p.c)), w = fill(size_t(p.m * p.c * 9)), b = fill(size_t(p.m));
  const std::vector<float> z = fill(size_t(p.n * g->out[0] * g->out[1] * p.m));

  onednn::ConvEpilogue e;
  e.channels_last = true;
  e.bias = true;
  e.accumulate = true;
  e.activation = dnnl::algorithm::eltwise_relu;
  onednn::Conv conv(e);
  conv.set_constant_w(w.data());
  const std::vector<int64_t> x_nchw = {p.n, p.c, p.h, p.w}, w_shape = {p.m, p.c, 3, 3};
  Outcome out;
  auto wino = conv.uses_winograd(x_nchw, w_shape, 1, *g, w.data());
  EXPECT_TRUE(wino.ok()) << wino.status().to_string();
  out.winograd = wino.ok() && *wino;

  const std::vector<double> want = reference(p, *g, x, w, b, z);
  for (int run = 0; run < 2; ++run) {  // the second run reuses the cached primitive and packed weights
    std::vector<float> y(z.size(), std::nanf(""));  // y's old contents must not count
    Status s = conv.run(x_nchw, w_shape, 1, *g, x.data(), w.data(), b.data(), z.data(), y.data());
    EXPECT_TRUE(s.ok()) << s.to_string();
    double largest = 0, worst = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      largest = std::max(largest, std::abs(want[i]));
      worst = std::max(worst, std::abs(double(y[i]) - want[i]));
    }
    out.error = std::max(out.error, worst / largest);
  }
  return out;
}

// True where oneDNN 2.6 has a Winograd kernel (AVX-512) and ONYX_CONV_WINOGRAD does not turn it off.
bool winograd_expected() {
  if (const char* v = std::getenv("ONYX_CONV_WINOGRAD"); v && std::string(v) == "0") return false;
#if defined(__x86_64__) && defined(__GNUC__)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

TEST(OnednnConv, WinogradOnResNetLikeLayersIsWithin1e4OfDirect) {
  // ResNet-50's 3x3 layers scaled down in channels (the transform sizes depend on the
  // spatial size, which stays): 56x56, 28x28 and 14x14 outputs.
  for (const Problem& p : {Problem{1, 32, 32, 56, 56}, Problem{1, 64, 64, 28, 28}, Problem{2, 64, 48, 14, 14}}) {
    SCOPED_TRACE("c " + std::to_string(p.c) + " m " + std::to_string(p.m) + " h " + std::to_string(p.h));
    const Outcome o = run_problem(p);
    if (winograd_expected()) {
      EXPECT_TRUE(o.winograd) << "oneDNN has Winograd for AVX-512; it should have been chosen";
    }
    EXPECT_LE(o.error, 1e-4);
    std::printf("[ info ] %s, max error / max |y| = %.2e\n", o.winograd ? "Winograd" : "direct", o.error);
  }
}

TEST(OnednnConv, SmallOutputsAndStridesStayDirect) {
  for (const Problem& p : {Problem{1, 32, 32, 7, 7}, Problem{1, 32, 32, 56, 56, 2}}) {
    const Outcome o = run_problem(p);
    EXPECT_FALSE(o.winograd);
    EXPECT_LE(o.error, 1e-5);
  }
}

}  // namespace
}  // namespace onyx
