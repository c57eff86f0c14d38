#include "kernels/layer_norm_rows.h"

#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/avx512_math.h"
#include "kernels/target_clones.h"

namespace onyx::layer_norm {
namespace {

constexpr int kLanes = 16;

}  // namespace

ONYX_TARGET_CLONES float sum(const float* v, int64_t n) {
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += v[i + k];
  float total = 0;
  for (; i < n; ++i) total += v[i];
  for (float a : acc) total += a;
  return total;
}

ONYX_TARGET_CLONES float square_deviation(const float* v, float mean, int64_t n) {
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) {
      const float d = v[i + k] - mean;
      acc[k] += d * d;
    }
  float total = 0;
  for (; i < n; ++i) total += (v[i] - mean) * (v[i] - mean);
  for (float a : acc) total += a;
  return total;
}

ONYX_TARGET_CLONES void normalize(const float* v, float mean, float inv, const float* gamma, const float* beta,
                                  float* y, int64_t n) {
  if (beta) {
    for (int64_t i = 0; i < n; ++i) y[i] = (v[i] - mean) * inv * gamma[i] + beta[i];
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = (v[i] - mean) * inv * gamma[i];
  }
}

ONYX_TARGET_CLONES void input_gradient(const float* x, const float* dy, const float* gamma, float mean, float inv,
                                       float mean_g, float mean_gx, float* dx, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float xhat = (x[i] - mean) * inv;
    dx[i] = inv * (dy[i] * gamma[i] - mean_g - xhat * mean_gx);
  }
}

ONYX_TARGET_CLONES void parameter_gradients(const float* x, const float* dy, const float* mean, const float* inv,
                                            int64_t rows, int64_t cols, int64_t c0, int64_t c1, double* dgamma,
                                            double* dbeta) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    const float* dyr = dy + r * cols;
    const float m = mean[r], s = inv[r];
    if (dgamma)
      for (int64_t j = c0; j < c1; ++j) dgamma[j - c0] += double(dyr[j]) * double((xr[j] - m) * s);
    if (dbeta)
      for (int64_t j = c0; j < c1; ++j) dbeta[j - c0] += double(dyr[j]);
  }
}

#if ONYX_HAVE_AVX512
namespace {

constexpr int64_t kGradientBlock = 64;  // rows whose column sums are taken together (in float)

// The 16 float lanes of v added in double.
ONYX_AVX512 inline double lanes_in_double(__m512 v) {
  return _mm512_reduce_add_pd(_mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)),
                                            _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1))));
}

// Writes a block's float partial sums, part[0, cols), as its double sums and clears them.
inline void flush_partials(float* part, double* sums, int64_t cols) {
  for (int64_t j = 0; j < cols; ++j) {
    sums[j] = double(part[j]);
    part[j] = 0.f;
  }
}

// Rows [r0, r1): dx, and the block's column sums of dy * xhat and dy (in float across its
// rows, kept in fg / fb, which start zero) written in double to pg / pb (null: not wanted).
ONYX_AVX512 void gradient_block(const float* x, const float* dy, const float* gamma, int64_t r0, int64_t r1,
                                int64_t cols, double epsilon, float* dx, float* fg, float* fb, double* pg, double* pb) {
  for (int64_t r = r0; r < r1; ++r) {
    const float* xr = x + r * cols;
    const float* dyr = dy + r * cols;
    __m512 sx = _mm512_setzero_ps();
    avx512::for_each_vector(cols, [&](int64_t j, __mmask16 k) ONYX_AVX512 { sx = _mm512_add_ps(sx, _mm512_maskz_loadu_ps(k, xr + j)); });
    const float mean = float(lanes_in_double(sx) / double(cols));
    const __m512 mu = _mm512_set1_ps(mean);
    __m512 sdd = _mm512_setzero_ps(), sg = _mm512_setzero_ps(), sgx = _mm512_setzero_ps();
    avx512::for_each_vector(cols, [&](int64_t j, __mmask16 k) ONYX_AVX512 {
      const __m512 d = _mm512_maskz_sub_ps(k, _mm512_maskz_loadu_ps(k, xr + j), mu);
      const __m512 g = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, dyr + j), _mm512_maskz_loadu_ps(k, gamma + j));
      sdd = _mm512_fmadd_ps(d, d, sdd);
      sg = _mm512_add_ps(sg, g);
      sgx = _mm512_fmadd_ps(g, d, sgx);
    });
    const double var = lanes_in_double(sdd) / double(cols);
    const float inv = float(1.0 / std::sqrt(var + epsilon));
    const float mean_g = float(lanes_in_double(sg) / double(cols));
    const float mean_gx = float(lanes_in_double(sgx) * inv / double(cols));
    const __m512 vinv = _mm512_set1_ps(inv), vmg = _mm512_set1_ps(mean_g), vmgx = _mm512_set1_ps(mean_gx);
    avx512::for_each_vector(cols, [&](int64_t j, __mmask16 k) ONYX_AVX512 {
      const __m512 dyv = _mm512_maskz_loadu_ps(k, dyr + j);
      const __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, xr + j), mu), vinv);
      const __m512 g = _mm512_mul_ps(dyv, _mm512_maskz_loadu_ps(k, gamma + j));
      const __m512 v = _mm512_mul_ps(vinv, _mm512_sub_ps(_mm512_sub_ps(g, vmg), _mm512_mul_ps(xhat, vmgx)));
      _mm512_mask_storeu_ps(dx + r * cols + j, k, v);
      if (pg) _mm512_mask_storeu_ps(fg + j, k, _mm512_fmadd_ps(dyv, xhat, _mm512_maskz_loadu_ps(k, fg + j)));
      if (pb) _mm512_mask_storeu_ps(fb + j, k, _mm512_add_ps(dyv, _mm512_maskz_loadu_ps(k, fb + j)));
    });
  }
  if (pg) flush_partials(fg, pg, cols);
  if (pb) flush_partials(fb, pb, cols);
}

}  // namespace

namespace {

ONYX_AVX512 void normalize_row(const float* a, const float* b, const float* bias, float* s, const float* gamma,
                               const float* beta, double epsilon, float* y, int64_t n, float* mean_out, float* inv_out) {
  // v is summed where it is made; when it is not kept in s it is made again in the last pass.
  auto value = [&](int64_t j, __mmask16 k) ONYX_AVX512 {
    __m512 v = _mm512_maskz_loadu_ps(k, a + j);
    if (b) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(k, b + j));
    if (bias) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(k, bias + j));
    return v;
  };
  __m512 sv = _mm512_setzero_ps();
  avx512::for_each_vector(n, [&](int64_t j, __mmask16 k) ONYX_AVX512 {
    const __m512 v = value(j, k);
    if (s) _mm512_mask_storeu_ps(s + j, k, v);
    sv = _mm512_add_ps(sv, v);
  });
  const float mean = float(lanes_in_double(sv) / double(n));
  const __m512 mu = _mm512_set1_ps(mean);
  __m512 sdd = _mm512_setzero_ps();
  avx512::for_each_vector(n, [&](int64_t j, __mmask16 k) ONYX_AVX512 {
    const __m512 d = _mm512_maskz_sub_ps(k, s ? _mm512_maskz_loadu_ps(k, s + j) : value(j, k), mu);
    sdd = _mm512_fmadd_ps(d, d, sdd);
  });
  const float inv = float(1.0 / std::sqrt(lanes_in_double(sdd) / double(n) + epsilon));
  const __m512 vinv = _mm512_set1_ps(inv);
  avx512::for_each_vector(n, [&](int64_t j, __mmask16 k) ONYX_AVX512 {
    const __m512 v = s ? _mm512_maskz_loadu_ps(k, s + j) : value(j, k);
    __m512 out = _mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(v, mu), vinv), _mm512_maskz_loadu_ps(k, gamma + j));
    if (beta) out = _mm512_add_ps(out, _mm512_maskz_loadu_ps(k, beta + j));
    _mm512_mask_storeu_ps(y + j, k, out);
  });
  *mean_out = mean;
  *inv_out = inv;
}

}  // namespace

bool normalize_row_avx512(const float* a, const float* b, const float* bias, float* s, const float* gamma,
                          const float* beta, double epsilon, float* y, int64_t n, float* mean, float* inv) {
  if (!avx512::available() || n <= 0) return false;
  normalize_row(a, b, bias, s, gamma, beta, epsilon, y, n, mean, inv);
  return true;
}

bool gradient_rows_avx512(const float* x, const float* dy, const float* gamma, int64_t rows, int64_t cols,
                          double epsilon, float* dx, float* dgamma, float* dbeta) {
  if (!avx512::available()) return false;
  const int64_t blocks = (rows + kGradientBlock - 1) / kGradientBlock;
  std::vector<double> part_g(dgamma ? size_t(blocks * cols) : 0), part_b(dbeta ? size_t(blocks * cols) : 0);
  parallel_for(blocks, std::max<int64_t>(1, 4096 / std::max<int64_t>(cols * kGradientBlock / 16, 1)), [&](int64_t b0, int64_t b1) {
    std::vector<float> fg(dgamma ? size_t(cols) : 0, 0.f), fb(dbeta ? size_t(cols) : 0, 0.f);
    for (int64_t b = b0; b < b1; ++b)
      gradient_block(x, dy, gamma, b * kGradientBlock, std::min(rows, (b + 1) * kGradientBlock), cols, epsilon, dx,
                     fg.data(), fb.data(), dgamma ? part_g.data() + b * cols : nullptr, dbeta ? part_b.data() + b * cols : nullptr);
  });
  // The blocks' sums added in block order, for all columns at once.
  std::vector<double> total_g(dgamma ? size_t(cols) : 0, 0.0), total_b(dbeta ? size_t(cols) : 0, 0.0);
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t j = 0; j < cols; ++j) {
      if (dgamma) total_g[size_t(j)] += part_g[size_t(b * cols + j)];
      if (dbeta) total_b[size_t(j)] += part_b[size_t(b * cols + j)];
    }
  for (int64_t j = 0; j < cols; ++j) {
    if (dgamma) dgamma[j] = float(total_g[size_t(j)]);
    if (dbeta) dbeta[j] = float(total_b[size_t(j)]);
  }
  return true;
}
#else
bool normalize_row_avx512(const float*, const float*, const float*, float*, const float*, const float*, double, float*,
                          int64_t, float*, float*) {
  return false;
}
bool gradient_rows_avx512(const float*, const float*, const float*, int64_t, int64_t, double, float*, float*, float*) {
  return false;
}
#endif

}  // namespace onyx::layer_norm
