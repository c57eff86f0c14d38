// GELU for the Gelu family of kernels (ai.onnx Gelu, com.microsoft Gelu, FastGelu, BiasGelu):
// fast vectorisable erf and tanh, row loops built for AVX-512, AVX2 and plain x86-64 (picked
// at start-up), and the shared compute.
//
//   erf form:  gelu(x) = 0.5 * x * (1 + erf(x / sqrt(2)))
//   tanh form: gelu(x) = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
#pragma once
#include <algorithm>
#include <cstdint>

#include "kernels/kernel.h"

namespace onyx {

// erf(x) as a rational function of x on [-4, 4] (clamped outside); absolute error below 1e-7
// in float. Branch-free, so loops over it vectorise.
inline float fast_erf(float x) {
  x = std::min(std::max(x, -4.f), 4.f);
  const float x2 = x * x;
  float p = -2.72614225801306e-10f;
  p = p * x2 + 2.77068142495902e-08f;
  p = p * x2 + -2.10102402082508e-06f;
  p = p * x2 + -5.69250639462346e-05f;
  p = p * x2 + -7.34990630326855e-04f;
  p = p * x2 + -2.95459980854025e-03f;
  p = p * x2 + -1.60960333262415e-02f;
  float q = -1.45660718464996e-05f;
  q = q * x2 + -2.13374055278905e-04f;
  q = q * x2 + -1.68282697438203e-03f;
  q = q * x2 + -7.37332916720468e-03f;
  q = q * x2 + -1.42647390514189e-02f;
  return x * p / q;
}

// tanh(x) as a rational function of x on [-7.9053, 7.9053] (clamped outside); absolute error
// below 3e-7 in float. Branch-free.
inline float fast_tanh(float x) {
  x = std::min(std::max(x, -7.90531110763549805f), 7.90531110763549805f);
  const float x2 = x * x;
  float p = -2.76076847742355e-16f;
  p = p * x2 + 2.00018790482477e-13f;
  p = p * x2 + -8.60467152213735e-11f;
  p = p * x2 + 5.12229709037114e-08f;
  p = p * x2 + 1.48572235717979e-05f;
  p = p * x2 + 6.37261928875436e-04f;
  p = p * x2 + 4.89352455891786e-03f;
  float q = 1.19825839466702e-06f;
  q = q * x2 + 1.18534705686654e-04f;
  q = q * x2 + 2.26843463243900e-03f;
  q = q * x2 + 4.89352518554385e-03f;
  return x * p / q;
}

enum class GeluKind { kErf, kTanh };

// y[i] = gelu(x[i] + (bias ? bias[i] : 0)) for i in [0, n); `bias` may be null.
void gelu_row(GeluKind kind, const float* x, const float* bias, float* y, int64_t n);

// Output 0 = gelu(X + bias): X float32, float16 or double; `bias` (null for none) a 1-D tensor
// of X's type added along X's last dim, which must equal its length or be 1 (then broadcast,
// as X + bias would; the output has the broadcast shape). INVALID_ARGUMENT for a bias that
// does not fit; NOT_IMPLEMENTED for other types. Rows run through parallel_for.
Status gelu_compute(KernelContext& ctx, GeluKind kind, const Tensor& x, const Tensor* bias);

}  // namespace onyx
