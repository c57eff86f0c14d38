// GeluGrad (ai.onyx.training): the gradient of GELU, dX = dY * gelu'(X), elementwise, in one
// pass (the Gelu gradient rules emit it). dY and X of one shape; float32 or double.
// Attribute approximate = "none" (erf form):
//   gelu'(x) = Phi(x) + x * phi(x) = 0.5 * (1 + erf(x / sqrt(2))) + x * exp(-x^2 / 2) / sqrt(2 pi)
// or "tanh" (the tanh form, t = tanh(k * (x + c x^3)), k = sqrt(2 / pi), c = 0.044715):
//   gelu'(x) = 0.5 * (1 + t) + 0.5 * x * (1 - t^2) * k * (1 + 3 c x^2)
// float32 uses the Gelu kernels' fast erf (absolute error below 1e-7) and a branch-free exp
// (tanh and its derivative from exp(-2|u|)), so the row loops vectorise (AVX-512, AVX2, x86-64).
#include <bit>
#include <cmath>
#include <cstdint>

#include "core/parallel.h"
#include "kernels/avx512_math.h"
#include "kernels/gelu_common.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kCubic = 0.044715;

// e^a for a <= 0 (clamped at -87, where e^a is about 1.6e-38, near float's smallest normal), relative
// error about 2e-7: a = n ln2 + r with |r| <= ln2 / 2, e^r by its degree-6 Taylor polynomial,
// 2^n built in the exponent bits. Branch-free.
inline float exp_nonpositive(float a) {
  a = std::max(a, -87.f);
  const float n = (a * 1.44269504088896341f + 12582912.f) - 12582912.f;  // round to nearest
  const float r = (a - n * 0.693359375f) - n * -2.12194440e-4f;
  float p = 1.f / 720.f;
  p = p * r + 1.f / 120.f;
  p = p * r + 1.f / 24.f;
  p = p * r + 1.f / 6.f;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  const int32_t bits = (int32_t(n) + 127) << 23;
  return p * std::bit_cast<float>(bits);
}

ONYX_TARGET_CLONES void gelu_grad_erf_f32(const float* dy, const float* x, float* dx, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float d = 0.5f * (1.f + fast_erf(v * float(kInvSqrt2))) + v * exp_nonpositive(-0.5f * v * v) * float(kInvSqrt2Pi);
    dx[i] = dy[i] * d;
  }
}

ONYX_TARGET_CLONES void gelu_grad_tanh_f32(const float* dy, const float* x, float* dx, int64_t n) {
  constexpr float k = float(kSqrt2OverPi), c = float(kCubic);
  for (int64_t i = 0; i < n; ++i) {
    // tanh(u) and 1 - tanh(u)^2 from e = exp(-2|u|), accurate in the tails where 1 - t^2
    // would cancel: t = sign(u) (1 - e) / (1 + e), 1 - t^2 = 4 e / (1 + e)^2.
    const float v = x[i];
    const float u = k * (v + c * v * v * v);
    const float e = exp_nonpositive(-2.f * std::fabs(u));
    const float t = std::copysign((1.f - e) / (1.f + e), u);
    const float sech2 = 4.f * e / ((1.f + e) * (1.f + e));
    dx[i] = dy[i] * (0.5f * (1.f + t) + 0.5f * v * sech2 * k * (1.f + 3.f * c * v * v));
  }
}

#if ONYX_HAVE_AVX512
// The loops above on 16 lanes (the same formulas; avx512_math.h's exp, erf and tanh).
ONYX_AVX512 void gelu_grad_erf_avx512(const float* dy, const float* x, float* dx, int64_t n) {
  const __m512 half = _mm512_set1_ps(0.5f), inv_sqrt2 = _mm512_set1_ps(float(kInvSqrt2));
  const __m512 inv_sqrt2pi = _mm512_set1_ps(float(kInvSqrt2Pi)), minus_half = _mm512_set1_ps(-0.5f);
  avx512::for_each_vector(n, [&](int64_t i, __mmask16 m) ONYX_AVX512 {
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    const __m512 cdf = _mm512_fmadd_ps(half, avx512::erf(_mm512_mul_ps(v, inv_sqrt2)), half);
    const __m512 pdf = avx512::exp_nonpositive(_mm512_mul_ps(_mm512_mul_ps(v, v), minus_half));
    const __m512 d = _mm512_fmadd_ps(_mm512_mul_ps(v, pdf), inv_sqrt2pi, cdf);
    _mm512_mask_storeu_ps(dx + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, dy + i), d));
  });
}

ONYX_AVX512 void gelu_grad_tanh_avx512(const float* dy, const float* x, float* dx, int64_t n) {
  const __m512 k = _mm512_set1_ps(float(kSqrt2OverPi)), c = _mm512_set1_ps(float(kCubic));
  const __m512 c3 = _mm512_set1_ps(float(3 * kCubic)), one = _mm512_set1_ps(1.f), half = _mm512_set1_ps(0.5f);
  const __m512 sign = _mm512_set1_ps(-0.f);
  avx512::for_each_vector(n, [&](int64_t i, __mmask16 m) ONYX_AVX512 {
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    const __m512 v2 = _mm512_mul_ps(v, v);
    const __m512 u = _mm512_mul_ps(k, _mm512_fmadd_ps(_mm512_mul_ps(c, v2), v, v));
    const __m512 e = avx512::exp_nonpositive(_mm512_mul_ps(_mm512_set1_ps(-2.f), _mm512_abs_ps(u)));
    const __m512 inv = _mm512_div_ps(one, _mm512_add_ps(one, e));
    const __m512 t = _mm512_or_ps(_mm512_mul_ps(_mm512_sub_ps(one, e), inv), _mm512_and_ps(u, sign));
    const __m512 sech2 = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(4.f), e), _mm512_mul_ps(inv, inv));
    const __m512 slope = _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_mul_ps(sech2, k));
    const __m512 d = _mm512_fmadd_ps(slope, _mm512_fmadd_ps(c3, v2, one), _mm512_mul_ps(half, _mm512_add_ps(one, t)));
    _mm512_mask_storeu_ps(dx + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, dy + i), d));
  });
}
#endif

inline double derivative(GeluKind kind, double x) {
  if (kind == GeluKind::kErf) return 0.5 * (1.0 + std::erf(x * kInvSqrt2)) + x * std::exp(-0.5 * x * x) * kInvSqrt2Pi;
  const double t = std::tanh(kSqrt2OverPi * (x + kCubic * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * kSqrt2OverPi * (1.0 + 3.0 * kCubic * x * x);
}

void gelu_grad(GeluKind kind, const float* dy, const float* x, float* dx, int64_t n) {
  parallel_for(n, 16384, [&](int64_t i0, int64_t i1) {
#if ONYX_HAVE_AVX512
    if (avx512::available()) {
      if (kind == GeluKind::kErf) gelu_grad_erf_avx512(dy + i0, x + i0, dx + i0, i1 - i0);
      else gelu_grad_tanh_avx512(dy + i0, x + i0, dx + i0, i1 - i0);
      return;
    }
#endif
    if (kind == GeluKind::kErf) gelu_grad_erf_f32(dy + i0, x + i0, dx + i0, i1 - i0);
    else gelu_grad_tanh_f32(dy + i0, x + i0, dx + i0, i1 - i0);
  });
}

void gelu_grad(GeluKind kind, const double* dy, const double* x, double* dx, int64_t n) {
  parallel_for(n, 16384, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) dx[i] = dy[i] * derivative(kind, x[i]);
  });
}

class GeluGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::string approximate = info.attr_string("approximate", "none");
    if (approximate == "tanh") kind_ = GeluKind::kTanh;
    else if (approximate != "none") return invalid_model("GeluGrad: approximate must be \"none\" or \"tanh\", got \"", approximate, "\"");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& x = ctx.input(1);
    if (dy.shape() != x.shape() || dy.dtype() != x.dtype())
      return invalid_argument("GeluGrad: dY ", dy.describe(), " and X ", x.describe(), " must match");
    ONYX_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    if (x.dtype() == DataType::kFloat) {
      gelu_grad(kind_, dy.data<float>(), x.data<float>(), dx->data<float>(), x.numel());
    } else if (x.dtype() == DataType::kDouble) {
      gelu_grad(kind_, dy.data<double>(), x.data<double>(), dx->data<double>(), x.numel());
    } else {
      return not_implemented("GeluGrad (ai.onyx.training) for ", data_type_name(x.dtype()), " (float32 and double)");
    }
    return Status::Ok();
  }

 private:
  GeluKind kind_ = GeluKind::kErf;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "GeluGrad", 1, kLatestOpset, GeluGradKernel);

}  // namespace onyx
