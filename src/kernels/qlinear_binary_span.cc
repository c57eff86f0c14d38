// No contraction into fused multiply-adds: the AVX2 / AVX-512 clones must round as baseline does.
#pragma GCC optimize("fp-contract=off")
#include "kernels/qlinear_binary_span.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/parallel.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

template <typename Q, bool kMul>
inline __attribute__((always_inline)) Q combine(int32_t x, int32_t y, float ka, float kb, float mul, float zc) {
  constexpr float lo = float(std::numeric_limits<Q>::lowest()), hi = float(std::numeric_limits<Q>::max());
  float v;
  if constexpr (kMul) v = float(x * y) * mul;
  else v = ka * float(x) + kb * float(y);
  v = std::nearbyint(v) + zc;
  v = std::min(std::max(v, lo), hi);
  return Q(int32_t(v));
}

// Two loops, so that each vectorises with plain loads: b one value (b_step 0) or b[i].
template <typename Q, bool kMul>
inline __attribute__((always_inline)) void span_body(const Q* a, const Q* b, int64_t b_step, Q* c, int64_t n,
                                                     const QLinearBinaryParams& p) {
  const float sa = p.a_scale, sb = p.b_scale, sc = p.c_scale, zc = float(p.c_zero_point);
  const float mul = sa * sb / sc, ka = sa / sc, kb = sb / sc;
  const int32_t za = p.a_zero_point, zb = p.b_zero_point;
  if (b_step == 0) {
    const int32_t y = int32_t(b[0]) - zb;
    for (int64_t i = 0; i < n; ++i) c[i] = combine<Q, kMul>(int32_t(a[i]) - za, y, ka, kb, mul, zc);
  } else {
    for (int64_t i = 0; i < n; ++i) c[i] = combine<Q, kMul>(int32_t(a[i]) - za, int32_t(b[i]) - zb, ka, kb, mul, zc);
  }
}

ONYX_TARGET_CLONES void add_u8(const uint8_t* a, const uint8_t* b, int64_t s, uint8_t* c, int64_t n, const QLinearBinaryParams& p) { span_body<uint8_t, false>(a, b, s, c, n, p); }
ONYX_TARGET_CLONES void add_s8(const int8_t* a, const int8_t* b, int64_t s, int8_t* c, int64_t n, const QLinearBinaryParams& p) { span_body<int8_t, false>(a, b, s, c, n, p); }
ONYX_TARGET_CLONES void mul_u8(const uint8_t* a, const uint8_t* b, int64_t s, uint8_t* c, int64_t n, const QLinearBinaryParams& p) { span_body<uint8_t, true>(a, b, s, c, n, p); }
ONYX_TARGET_CLONES void mul_s8(const int8_t* a, const int8_t* b, int64_t s, int8_t* c, int64_t n, const QLinearBinaryParams& p) { span_body<int8_t, true>(a, b, s, c, n, p); }

}  // namespace

bool qlinear_binary_span(bool mul, DataType type, const void* a, const void* b, bool b_scalar, void* c, int64_t n,
                         const QLinearBinaryParams& p) {
  if (!std::isfinite(p.a_scale) || !std::isfinite(p.b_scale) || !std::isfinite(p.c_scale) || !(p.c_scale > 0) ||
      !std::isfinite(p.a_scale * p.b_scale / p.c_scale))
    return false;
  if (type != DataType::kUInt8 && type != DataType::kInt8) return false;
  const bool u8 = type == DataType::kUInt8;
  const int64_t step = b_scalar ? 0 : 1;
  parallel_for(n, int64_t(1) << 15, [&](int64_t begin, int64_t end) {
    const int64_t len = end - begin;
    const int64_t bo = b_scalar ? 0 : begin;
    if (u8) {
      const uint8_t* pa = static_cast<const uint8_t*>(a) + begin;
      const uint8_t* pb = static_cast<const uint8_t*>(b) + bo;
      uint8_t* pc = static_cast<uint8_t*>(c) + begin;
      mul ? mul_u8(pa, pb, step, pc, len, p) : add_u8(pa, pb, step, pc, len, p);
    } else {
      const int8_t* pa = static_cast<const int8_t*>(a) + begin;
      const int8_t* pb = static_cast<const int8_t*>(b) + bo;
      int8_t* pc = static_cast<int8_t*>(c) + begin;
      mul ? mul_s8(pa, pb, step, pc, len, p) : add_s8(pa, pb, step, pc, len, p);
    }
  });
  return true;
}

}  // namespace onyx
