// The rotation shared by RotaryEmbedding and GroupQueryAttention: the first 2 * half elements
// of a head vector turned by the angles whose cosines and sines are c[0, half) and s[0, half),
// pairing element i with i + half, or 2i with 2i + 1 when interleaved; in and out may alias.
#pragma once
#include <cstdint>

namespace onyx {

template <typename T>
inline void rotate_head(const T* in, T* out, const float* c, const float* s, int64_t half, bool interleaved) {
  for (int64_t i = 0; i < half; ++i) {
    const int64_t lo = interleaved ? 2 * i : i, hi = interleaved ? 2 * i + 1 : i + half;
    const float a = float(in[lo]), b = float(in[hi]);
    out[lo] = T(a * c[i] - b * s[i]);
    out[hi] = T(b * c[i] + a * s[i]);
  }
}

}  // namespace onyx
