// Shared by the MatMulNBits kernel tests (nbits_matmul_test, nbits_panels_test): random packed
// weights of a case, the weight they stand for, and checks of a product against a float64
// product with the dequantised weights (float activations) or against the int8-activation
// contract (accuracy_level 4).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/nbits_matmul.h"

namespace onyx::nbits_test {

enum class Zeros { kDefault, kCodes, kFloats };

struct Case {
  int64_t n, k, bits, block;
  Zeros zeros;
};

struct Packed {
  std::vector<uint8_t> codes, zero_codes;
  std::vector<float> scales, zero_floats;
  NBitsWeights w;
};

inline Packed make_weights(const Case& c, std::mt19937& rng) {
  Packed p;
  NBitsWeights& w = p.w;
  w.n = c.n, w.k = c.k, w.bits = c.bits, w.block = c.block;
  p.codes.resize(size_t(w.n * w.blocks() * w.block_bytes()));
  for (uint8_t& b : p.codes) b = uint8_t(rng());  // includes junk past K in the last block
  std::uniform_real_distribution<float> scale(0.01f, 0.2f);
  p.scales.resize(size_t(w.n * w.blocks()));
  for (float& s : p.scales) s = scale(rng);
  const int levels = 1 << c.bits;
  if (c.zeros == Zeros::kCodes) {
    p.zero_codes.resize(p.scales.size());
    for (uint8_t& z : p.zero_codes) z = uint8_t(rng() % levels);
  } else if (c.zeros == Zeros::kFloats) {
    p.zero_floats.resize(p.scales.size());
    std::uniform_real_distribution<float> zf(0.f, float(levels - 1));
    for (float& z : p.zero_floats) z = zf(rng);
  }
  w.codes = p.codes.data();
  w.scales = p.scales.data();
  w.zero_codes = p.zero_codes.empty() ? nullptr : p.zero_codes.data();
  w.zero_floats = p.zero_floats.empty() ? nullptr : p.zero_floats.data();
  return p;
}

inline double weight(const NBitsWeights& w, int64_t n, int64_t k) {
  const int64_t j = k / w.block, t = k % w.block;
  const uint8_t* blob = w.codes + (n * w.blocks() + j) * w.block_bytes();
  const int64_t bit = t * w.bits;
  const int code = (blob[bit / 8] >> (bit % 8)) & ((1 << w.bits) - 1);
  return (double(code) - double(w.zero(n, j))) * double(w.scales[n * w.blocks() + j]);
}

using ProductFn = void (*)(const NBitsWeights&, const float*, int64_t, float*);

inline void check(ProductFn fn, const Case& c, int64_t rows) {
  std::mt19937 rng(uint32_t(c.n * 131 + c.k * 7 + c.bits + c.block + rows));
  const Packed p = make_weights(c, rng);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> a(size_t(rows * c.k));
  for (float& v : a) v = dist(rng);
  std::vector<float> y(size_t(rows * c.n), 1e30f);
  fn(p.w, a.data(), rows, y.data());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t n = 0; n < c.n; ++n) {
      double want = 0, magnitude = 0;
      for (int64_t k = 0; k < c.k; ++k) {
        const double term = double(a[size_t(r * c.k + k)]) * weight(p.w, n, k);
        want += term;
        magnitude += std::abs(term);
      }
      ASSERT_NEAR(y[size_t(r * c.n + n)], want, 1e-5 * (1 + magnitude))
          << "n=" << c.n << " k=" << c.k << " bits=" << c.bits << " block=" << c.block << " zeros=" << int(c.zeros)
          << " rows=" << rows << " at (" << r << ", " << n << ")";
    }
}

// The int8-activation product (accuracy_level 4) computed here from its contract: a quantised per
// block (max |a| / 127, half to even), exact integer sums, then the scales.
inline std::vector<double> int8_reference(const NBitsWeights& w, const std::vector<float>& a, int64_t rows) {
  std::vector<double> y(size_t(rows * w.n));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = a.data() + r * w.k;
    for (int64_t n = 0; n < w.n; ++n) {
      double total = 0;
      for (int64_t j = 0; j < w.blocks(); ++j) {
        const int64_t k0 = j * w.block, k1 = std::min(w.k, k0 + w.block);
        float amax = 0.f;
        for (int64_t t = k0; t < k1; ++t) amax = std::max(amax, std::abs(row[t]));
        const float a_scale = amax / 127.f;
        int64_t dot = 0, sum = 0;
        for (int64_t t = k0; t < k1; ++t) {
          const int64_t q = a_scale > 0 ? int64_t(std::nearbyint(row[t] * (1.f / a_scale))) : 0;
          const int64_t bit = (t - k0) * w.bits;
          const uint8_t* blob = w.codes + (n * w.blocks() + j) * w.block_bytes();
          dot += q * ((blob[bit / 8] >> (bit % 8)) & ((1 << w.bits) - 1));
          sum += q;
        }
        const double s = w.scales[n * w.blocks() + j];
        total += s * a_scale * (double(dot) - double(w.zero(n, j)) * double(sum));
      }
      y[size_t(r * w.n + n)] = total;
    }
  }
  return y;
}

inline void check_int8(ProductFn fn, const Case& c, int64_t rows) {
  std::mt19937 rng(uint32_t(c.n * 17 + c.k + rows));
  const Packed p = make_weights(c, rng);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> a(size_t(rows * c.k));
  for (float& v : a) v = dist(rng);
  a[0] = 0.5f * (a[1] + a[2]);  // any value; ties are covered by the reference using the same rule
  std::vector<float> y(size_t(rows * c.n), 1e30f), exact(size_t(rows * c.n));
  fn(p.w, a.data(), rows, y.data());
  nbits_matmul(p.w, a.data(), rows, exact.data());
  const std::vector<double> want = int8_reference(p.w, a, rows);
  for (size_t i = 0; i < y.size(); ++i) {
    const int64_t n = int64_t(i) % c.n, r = int64_t(i) / c.n;
    double weight_magnitude = 0, term_magnitude = 0;
    for (int64_t k = 0; k < c.k; ++k) {
      weight_magnitude += std::abs(weight(p.w, n, k));
      term_magnitude += std::abs(double(a[size_t(r * c.k + k)]) * weight(p.w, n, k));
    }
    // float32 sums of the blocks' terms: within a few ulps of the terms' magnitude (8-bit codes
    // make terms far larger than a result they cancel down to)
    ASSERT_NEAR(y[i], want[i], 1e-5 * (1 + std::abs(want[i])) + 1e-6 * term_magnitude)
        << "n=" << c.n << " k=" << c.k << " bits=" << c.bits << " at " << i;
    // and within a's rounding of the float32 product: each a moves by at most half a step
    // (max |a| / 254 <= 1 / 254), times |W|
    ASSERT_NEAR(y[i], exact[i], weight_magnitude / 254 + 1e-4) << i;
  }
}

}  // namespace onyx::nbits_test
