#include "kernels/depthwise_rows.h"

#include <algorithm>

#include "kernels/target_clones.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ONYX_DEPTHWISE_AVX512 1
#endif

namespace onyx {
namespace {

// The input rows output row r reads (null for a padding row); `rows` has g.kh entries.
void window_rows(const DepthwiseGeometry& g, const float* src, int64_t src_row0, int64_t r, const float** rows) {
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t ih = r * g.sh - g.pt + i;
    rows[i] = ih >= 0 && ih < g.in_h ? src + (ih - src_row0) * g.in_w * g.channels : nullptr;
  }
}

#ifdef ONYX_DEPTHWISE_AVX512
// One output pixel's window for the 16 channels at c (mask m): taps j0..j1 of each row, a sum
// per window row (three short chains rather than one long one), added at the end.
__attribute__((target("avx512f"))) inline __m512 pixel_avx512(const DepthwiseGeometry& g, const float* const* rows,
                                                              const float* taps, int64_t c, __mmask16 m, __m512 acc,
                                                              int64_t iw0, int64_t j0, int64_t j1) {
  const int64_t c_total = g.channels;
  __m512 part[3] = {acc, _mm512_setzero_ps(), _mm512_setzero_ps()};
  for (int64_t i = 0; i < g.kh; ++i) {
    if (!rows[i]) continue;
    const float* in = rows[i] + c;
    const float* tap = taps + i * g.kw * c_total + c;
    __m512& sum = part[i % 3];
    for (int64_t j = j0; j < j1; ++j)
      sum = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, in + (iw0 + j) * c_total), _mm512_maskz_loadu_ps(m, tap + j * c_total),
                            sum);
  }
  return _mm512_add_ps(_mm512_add_ps(part[0], part[1]), part[2]);
}

// Clamps to [lo, hi] and stores the 16 channels (mask m) at out.
__attribute__((target("avx512f"))) inline void store_avx512(float* out, __mmask16 m, __m512 vlo, __m512 vhi,
                                                            __m512 acc) {
  // (maskz forms: GCC 12 warns of an uninitialised operand in the plain ones)
  acc = _mm512_maskz_min_ps(m, vhi, _mm512_maskz_max_ps(m, vlo, acc));  // NaN passes through, as in std::max
  _mm512_mask_storeu_ps(out, m, acc);
}

// Output pixel ow alone, its taps clipped to the row.
__attribute__((target("avx512f"))) inline void single_avx512(const DepthwiseGeometry& g, const float* const* rows,
                                                             const float* taps, int64_t c, __mmask16 m, __m512 b,
                                                             __m512 vlo, __m512 vhi, int64_t ow, float* out_row) {
  const int64_t iw0 = ow * g.sw - g.pl;
  const int64_t j0 = std::max<int64_t>(0, -iw0), j1 = std::min<int64_t>(g.kw, g.in_w - iw0);
  store_avx512(out_row + ow * g.channels + c, m, vlo, vhi, pixel_avx512(g, rows, taps, c, m, b, iw0, j0, j1));
}

// kGroup pixels from ow whose windows lie inside the row, any window: kGroup independent sums
// sharing each tap's load (one sum alone would wait on its own multiply-adds). Every row
// pointer is valid (padding rows point at zeros).
template <int kGroup>
__attribute__((target("avx512f"))) inline void group_avx512(const DepthwiseGeometry& g, const float* const* rows,
                                                            const float* taps, int64_t c, __mmask16 m, __m512 b,
                                                            __m512 vlo, __m512 vhi, int64_t ow, float* out_row) {
  const int64_t c_total = g.channels, step = g.sw * c_total, kh = g.kh, kw = g.kw;
  __m512 acc[kGroup];
#pragma GCC unroll 8
  for (int p = 0; p < kGroup; ++p) acc[p] = b;
  for (int64_t i = 0; i < kh; ++i) {
    const float* in = rows[i] + (ow * g.sw - g.pl) * c_total + c;
    const float* tap = taps + i * kw * c_total + c;
    for (int64_t j = 0; j < kw; ++j) {
      const __m512 w = _mm512_maskz_loadu_ps(m, tap + j * c_total);
      const float* at = in + j * c_total;
#pragma GCC unroll 8
      for (int p = 0; p < kGroup; ++p) acc[p] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, at + p * step), w, acc[p]);
    }
  }
#pragma GCC unroll 8
  for (int p = 0; p < kGroup; ++p) store_avx512(out_row + (ow + p) * c_total + c, m, vlo, vhi, acc[p]);
}

template <bool kFull>
__attribute__((target("avx512f"))) inline __m512 load16(const float* p, __mmask16 m) {
  if constexpr (kFull) return _mm512_loadu_ps(p);  // (masked loads cost more, even with every lane on)
  else return _mm512_maskz_loadu_ps(m, p);
}

// A 3x3 window at stride kStride (1 or 2), kGroup pixels from ow inside the row: each input
// vector is loaded once and multiplied into every sum whose window covers it (up to three),
// with the row's three taps held in registers, so loads no longer bound the multiply-adds.
// The sums are taken in the same order as group_avx512's. kFull: all 16 channels present.
template <int kGroup, int kStride, bool kFull>
__attribute__((target("avx512f"))) inline void group3x3_avx512(const DepthwiseGeometry& g, const float* const* rows,
                                                               const float* taps, int64_t c, __mmask16 m, __m512 b,
                                                               __m512 vlo, __m512 vhi, int64_t ow, float* out_row) {
  const int64_t c_total = g.channels;
  constexpr int kInputs = (kGroup - 1) * kStride + 3;
  __m512 acc[kGroup];
#pragma GCC unroll 8
  for (int p = 0; p < kGroup; ++p) acc[p] = b;
#pragma GCC unroll 3
  for (int i = 0; i < 3; ++i) {
    const float* in = rows[i] + (ow * kStride - g.pl) * c_total + c;
    const float* tap = taps + i * 3 * c_total + c;
    const __m512 w[3] = {load16<kFull>(tap, m), load16<kFull>(tap + c_total, m), load16<kFull>(tap + 2 * c_total, m)};
#pragma GCC unroll 32
    for (int q = 0; q < kInputs; ++q) {
      const __m512 v = load16<kFull>(in + q * c_total, m);
#pragma GCC unroll 3
      for (int j = 0; j < 3; ++j) {
        const int p = q - j;  // input q is tap j of pixel p / kStride
        if (p >= 0 && p % kStride == 0 && p / kStride < kGroup)
          acc[p / kStride] = _mm512_fmadd_ps(v, w[j], acc[p / kStride]);
      }
    }
  }
#pragma GCC unroll 8
  for (int p = 0; p < kGroup; ++p) store_avx512(out_row + (ow + p) * c_total + c, m, vlo, vhi, acc[p]);
}

// The group forms as types, so one loop serves both.
struct AnyWindow {
  template <int kGroup>
  __attribute__((target("avx512f"))) static void run(const DepthwiseGeometry& g, const float* const* rows,
                                                     const float* taps, int64_t c, __mmask16 m, __m512 b, __m512 vlo,
                                                     __m512 vhi, int64_t ow, float* out_row) {
    group_avx512<kGroup>(g, rows, taps, c, m, b, vlo, vhi, ow, out_row);
  }
};
template <int kStride, bool kFull>
struct Window3x3 {
  template <int kGroup>
  __attribute__((target("avx512f"))) static void run(const DepthwiseGeometry& g, const float* const* rows,
                                                     const float* taps, int64_t c, __mmask16 m, __m512 b, __m512 vlo,
                                                     __m512 vhi, int64_t ow, float* out_row) {
    group3x3_avx512<kGroup, kStride, kFull>(g, rows, taps, c, m, b, vlo, vhi, ow, out_row);
  }
};

// The inner pixels [ow, end) of one row for one channel block, in groups of 8, then 4, 2 and 1.
template <class Groups>
__attribute__((target("avx512f"))) inline int64_t inner_avx512(const DepthwiseGeometry& g, const float* const* rows,
                                                               const float* taps, int64_t c, __mmask16 m, __m512 b,
                                                               __m512 vlo, __m512 vhi, int64_t ow, int64_t end,
                                                               float* out_row) {
  for (; ow + 8 <= end; ow += 8) Groups::template run<8>(g, rows, taps, c, m, b, vlo, vhi, ow, out_row);
  if (ow + 4 <= end) Groups::template run<4>(g, rows, taps, c, m, b, vlo, vhi, ow, out_row), ow += 4;
  if (ow + 2 <= end) Groups::template run<2>(g, rows, taps, c, m, b, vlo, vhi, ow, out_row), ow += 2;
  if (ow < end) Groups::template run<1>(g, rows, taps, c, m, b, vlo, vhi, ow, out_row), ++ow;
  return ow;
}

// 16 channels per vector (the last block masked): the pixels inside the row in groups of 8,
// then 4, 2 and 1; the edge pixels alone, their taps clipped.
__attribute__((target("avx512f"))) void rows_avx512(const DepthwiseGeometry& g, const float* src, int64_t src_row0,
                                                    const float* taps, const float* bias, int64_t r0, int64_t r1,
                                                    float* dst, float lo, float hi, const float** rows) {
  const int64_t c_total = g.channels;
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  // Pixels [inner_lo, inner_hi) read no padding column.
  const int64_t inner_lo = std::min(g.out_w, (g.pl + g.sw - 1) / g.sw);
  const int64_t inner_hi = g.in_w + g.pl >= g.kw ? std::max(inner_lo, std::min(g.out_w, (g.in_w + g.pl - g.kw) / g.sw + 1))
                                                 : inner_lo;
  const bool three_by_three = g.kh == 3 && g.kw == 3;
  std::vector<const float*> dense(size_t(g.kh));  // rows, with padding rows at `zeros`
  std::vector<float> zeros;
  // Output rows in chunks whose input rows, one channel block of them (64 bytes a pixel), fit
  // in L1 (32 KB): within a chunk, channel blocks outer, so each input line comes from L2 or
  // memory once per chunk rather than once per window row.
  const int64_t chunk_in_rows = std::max<int64_t>(g.kh, (32 << 10) / std::max<int64_t>(1, g.in_w * 64));
  const int64_t chunk = std::max<int64_t>(1, (chunk_in_rows - g.kh) / g.sh + 1);
  for (int64_t rc = r0; rc < r1; rc += chunk) {
    for (int64_t c = 0; c < c_total; c += 16) {
      const int64_t left = c_total - c;
      const __mmask16 m = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
      const __m512 b = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
      for (int64_t r = rc; r < std::min(r1, rc + chunk); ++r) {
        window_rows(g, src, src_row0, r, rows);
        for (int64_t i = 0; i < g.kh; ++i) {
          if (rows[i]) {
            dense[i] = rows[i];
            continue;
          }
          if (zeros.empty()) zeros.assign(size_t(g.in_w * c_total), 0.0f);
          dense[i] = zeros.data();
        }
        float* out_row = dst + (r - r0) * g.out_w * c_total;
        int64_t ow = 0;
        for (; ow < inner_lo; ++ow) single_avx512(g, rows, taps, c, m, b, vlo, vhi, ow, out_row);
        const float* const* d = dense.data();
        if (three_by_three && g.sw == 1)
          ow = left >= 16 ? inner_avx512<Window3x3<1, true>>(g, d, taps, c, m, b, vlo, vhi, ow, inner_hi, out_row)
                          : inner_avx512<Window3x3<1, false>>(g, d, taps, c, m, b, vlo, vhi, ow, inner_hi, out_row);
        else if (three_by_three && g.sw == 2)
          ow = left >= 16 ? inner_avx512<Window3x3<2, true>>(g, d, taps, c, m, b, vlo, vhi, ow, inner_hi, out_row)
                          : inner_avx512<Window3x3<2, false>>(g, d, taps, c, m, b, vlo, vhi, ow, inner_hi, out_row);
        else
          ow = inner_avx512<AnyWindow>(g, d, taps, c, m, b, vlo, vhi, ow, inner_hi, out_row);
        for (; ow < g.out_w; ++ow) single_avx512(g, rows, taps, c, m, b, vlo, vhi, ow, out_row);
      }
    }
  }
}

bool avx512_available() {
  static const bool available = __builtin_cpu_supports("avx512f");
  return available;
}
#endif

// The portable form: the channel loops vectorise; the sum is kept in the output row.
ONYX_TARGET_CLONES void rows_portable(const DepthwiseGeometry& g, const float* src, int64_t src_row0,
                                      const float* taps, const float* bias, int64_t r0, int64_t r1, float* dst,
                                      float lo, float hi, const float** rows) {
  const int64_t c_total = g.channels;
  for (int64_t r = r0; r < r1; ++r) {
    window_rows(g, src, src_row0, r, rows);
    float* out_row = dst + (r - r0) * g.out_w * c_total;
    for (int64_t ow = 0; ow < g.out_w; ++ow) {
      const int64_t iw0 = ow * g.sw - g.pl;
      const int64_t j0 = std::max<int64_t>(0, -iw0), j1 = std::min<int64_t>(g.kw, g.in_w - iw0);
      float* __restrict out = out_row + ow * c_total;
      for (int64_t c = 0; c < c_total; ++c) out[c] = bias ? bias[c] : 0.0f;
      for (int64_t i = 0; i < g.kh; ++i) {
        if (!rows[i]) continue;
        for (int64_t j = j0; j < j1; ++j) {
          const float* __restrict in = rows[i] + (iw0 + j) * c_total;
          const float* __restrict tap = taps + (i * g.kw + j) * c_total;
          for (int64_t c = 0; c < c_total; ++c) out[c] += in[c] * tap[c];
        }
      }
      for (int64_t c = 0; c < c_total; ++c) out[c] = std::min(std::max(out[c], lo), hi);
    }
  }
}

}  // namespace

std::vector<float> depthwise_taps(const float* w, int64_t channels, int64_t kh, int64_t kw) {
  std::vector<float> taps(size_t(channels * kh * kw));
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t t = 0; t < kh * kw; ++t) taps[size_t(t * channels + c)] = w[c * kh * kw + t];
  return taps;
}

void depthwise_rows(const DepthwiseGeometry& g, const float* src, int64_t src_row0, const float* taps,
                    const float* bias, int64_t r0, int64_t r1, float* dst, float lo, float hi) {
  std::vector<const float*> rows(size_t(g.kh));
#ifdef ONYX_DEPTHWISE_AVX512
  if (avx512_available()) return rows_avx512(g, src, src_row0, taps, bias, r0, r1, dst, lo, hi, rows.data());
#endif
  rows_portable(g, src, src_row0, taps, bias, r0, r1, dst, lo, hi, rows.data());
}

void depthwise_rows_portable(const DepthwiseGeometry& g, const float* src, int64_t src_row0, const float* taps,
                             const float* bias, int64_t r0, int64_t r1, float* dst, float lo, float hi) {
  std::vector<const float*> rows(size_t(g.kh));
  rows_portable(g, src, src_row0, taps, bias, r0, r1, dst, lo, hi, rows.data());
}

}  // namespace onyx
