// The float32 -> 8-bit loop of QuantizeLinear (quantize.h), built for AVX-512, AVX2 and
// baseline (target_clones) and split across the intra-op threads.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/parallel.h"
#include "kernels/quantize.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

template <typename Q>
inline __attribute__((always_inline)) void span_body(const float* x, int64_t n, float scale, float zero_point, Q* y) {
  constexpr float lo = float(std::numeric_limits<Q>::lowest()), hi = float(std::numeric_limits<Q>::max());
  for (int64_t i = 0; i < n; ++i) {
    float v = std::nearbyint(x[i] / scale) + zero_point;
    v = v != v ? 0.f : v;  // NaN gives 0, as saturate_round does
    v = std::min(std::max(v, lo), hi);
    y[i] = Q(int32_t(v));
  }
}

ONYX_TARGET_CLONES void span_u8(const float* x, int64_t n, float s, float z, uint8_t* y) { span_body(x, n, s, z, y); }
ONYX_TARGET_CLONES void span_s8(const float* x, int64_t n, float s, float z, int8_t* y) { span_body(x, n, s, z, y); }

}  // namespace

bool quantize_float_span(const float* x, int64_t n, float scale, float zero_point, DataType type, void* y) {
  if (type != DataType::kUInt8 && type != DataType::kInt8) return false;
  parallel_for(n, int64_t(1) << 15, [&](int64_t begin, int64_t end) {
    if (type == DataType::kUInt8) span_u8(x + begin, end - begin, scale, zero_point, static_cast<uint8_t*>(y) + begin);
    else span_s8(x + begin, end - begin, scale, zero_point, static_cast<int8_t*>(y) + begin);
  });
  return true;
}

}  // namespace onyx
