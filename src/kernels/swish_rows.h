// The Swish gate shared by Swish (ai.onnx 24) and SwiGLU (ai.onnx 28):
//
//   y[i] = a[i] * sigmoid(alpha * a[i]) * (b ? b[i] : 1)
//
// over n float32 values, with sigmoid(z) = 1 / (1 + e^-z) (e^-z overflowing to +inf gives 0,
// not NaN). Sixteen AVX-512 lanes where the CPU has them (avx512_math.h's exp, about 1 ulp),
// a portable loop elsewhere. y may be a or b.
#pragma once
#include <cstdint>

namespace onyx {

void swish_row(const float* a, const float* b, float* y, int64_t n, float alpha);

}  // namespace onyx
