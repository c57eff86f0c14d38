#include "kernels/layer_norm_rows.h"

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

}  // namespace onyx::layer_norm
