#include "kernels/rms_norm.h"

#include "kernels/target_clones.h"

namespace onyx {
namespace {
constexpr int kLanes = 16;
}  // namespace

ONYX_TARGET_CLONES float sum_of_squares(const float* v, int64_t n) {
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += v[i + k] * v[i + k];
  float total = 0;
  for (; i < n; ++i) total += v[i] * v[i];
  for (float a : acc) total += a;
  return total;
}

ONYX_TARGET_CLONES void scale_row(const float* v, float inv, const float* scale, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = v[i] * inv * scale[i];
}

}  // namespace onyx
