#include "kernels/gelu_common.h"

#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/half_convert.h"
#include "kernels/expand_to.h"
#include "kernels/avx512_math.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kSqrt2OverPi = 0.79788456080286536f;
constexpr float kTanhCubic = 0.044715f * kSqrt2OverPi;

ONYX_TARGET_CLONES void gelu_erf_f32(const float* x, const float* bias, float* y, int64_t n) {
  if (bias) {
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[i] + bias[i];
      y[i] = 0.5f * v * (1.f + fast_erf(v * kInvSqrt2));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[i];
      y[i] = 0.5f * v * (1.f + fast_erf(v * kInvSqrt2));
    }
  }
}

ONYX_TARGET_CLONES void gelu_tanh_f32(const float* x, const float* bias, float* y, int64_t n) {
  if (bias) {
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[i] + bias[i];
      y[i] = 0.5f * v * (1.f + fast_tanh(v * (kSqrt2OverPi + kTanhCubic * v * v)));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[i];
      y[i] = 0.5f * v * (1.f + fast_tanh(v * (kSqrt2OverPi + kTanhCubic * v * v)));
    }
  }
}

#if ONYX_HAVE_AVX512
// The two loops above on 16 lanes (avx512_math.h's erf and tanh: the same functions).
template <GeluKind Kind>
ONYX_AVX512 void gelu_avx512(const float* x, const float* bias, float* y, int64_t n) {
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.f);
  avx512::for_each_vector(n, [&](int64_t i, __mmask16 m) ONYX_AVX512 {
    __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    if (bias) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bias + i));
    __m512 f;
    if constexpr (Kind == GeluKind::kErf) {
      f = avx512::erf(_mm512_mul_ps(v, _mm512_set1_ps(kInvSqrt2)));
    } else {
      const __m512 slope = _mm512_fmadd_ps(_mm512_set1_ps(kTanhCubic), _mm512_mul_ps(v, v), _mm512_set1_ps(kSqrt2OverPi));
      f = avx512::tanh(_mm512_mul_ps(v, slope));
    }
    _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_add_ps(one, f)));
  });
}
#endif

double gelu_f64(GeluKind kind, double v) {
  if (kind == GeluKind::kErf) return 0.5 * v * (1.0 + std::erf(v * 0.70710678118654752440));
  return 0.5 * v * (1.0 + std::tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
}

}  // namespace

void gelu_row(GeluKind kind, const float* x, const float* bias, float* y, int64_t n) {
#if ONYX_HAVE_AVX512
  if (avx512::available()) {
    if (kind == GeluKind::kErf) gelu_avx512<GeluKind::kErf>(x, bias, y, n);
    else gelu_avx512<GeluKind::kTanh>(x, bias, y, n);
    return;
  }
#endif
  if (kind == GeluKind::kErf) gelu_erf_f32(x, bias, y, n);
  else gelu_tanh_f32(x, bias, y, n);
}

Status gelu_compute(KernelContext& ctx, GeluKind kind, const Tensor& x_in, const Tensor* bias) {
  if (!x_in.defined()) return invalid_argument("input 0 must be a tensor");
  Tensor x = x_in;
  int64_t cols = std::min<int64_t>(x.numel(), 4096);
  if (bias) {
    if (bias->dtype() != x.dtype() || bias->rank() != 1)
      return invalid_argument("bias ", bias->describe(), " must be 1-D of the input's type (input ", x.describe(), ")");
    cols = bias->numel();
    if (x.rank() == 0 || (x.shape().back() == 1 && cols != 1)) {  // X + bias broadcasts X's last dim
      Shape wide = x.rank() == 0 ? Shape{cols} : x.shape();
      wide.back() = cols;
      ONYX_ASSIGN_OR_RETURN(x, expand_to(x, wide));
    } else if (x.shape().back() != cols) {
      return invalid_argument("bias ", bias->describe(), " does not match the last dim of the input ", x.describe());
    }
  }
  // Every element is written below (the rows cover all n).
  ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
  if (x.numel() == 0) return Status::Ok();
  const int64_t n = x.numel();
  const int64_t rows = (n + cols - 1) / cols;  // the last row may be short when there is no bias
  const int64_t grain = std::max<int64_t>(1, 16384 / cols);
  return dispatch<float, Float16, double>(x.dtype(), [&]<typename T>() -> Status {
    const T* in = x.data<T>();
    const T* b = bias ? bias->data<T>() : nullptr;
    T* out = y->data<T>();
    if constexpr (std::is_same_v<T, float>) {
      parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t len = std::min(cols, n - r * cols);
          gelu_row(kind, in + r * cols, b, out + r * cols, len);
        }
      });
    } else if constexpr (std::is_same_v<T, Float16>) {
      parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
        const size_t width = static_cast<size_t>(cols);
        std::vector<float> xf(width), bf(b ? width : 0), yf(width);
        if (b) half_to_float(reinterpret_cast<const uint16_t*>(b), bf.data(), cols);
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t len = std::min(cols, n - r * cols);
          half_to_float(reinterpret_cast<const uint16_t*>(in + r * cols), xf.data(), len);
          gelu_row(kind, xf.data(), b ? bf.data() : nullptr, yf.data(), len);
          float_to_half(yf.data(), reinterpret_cast<uint16_t*>(out + r * cols), len);
        }
      });
    } else {
      parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t len = std::min(cols, n - r * cols);
          for (int64_t j = 0; j < len; ++j)
            out[r * cols + j] = T(gelu_f64(kind, double(in[r * cols + j]) + (b ? double(b[j]) : 0.0)));
        }
      });
    }
    return Status::Ok();
  });
}

}  // namespace onyx
