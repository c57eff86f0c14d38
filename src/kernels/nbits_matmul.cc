#include "kernels/nbits_matmul.h"

#include <algorithm>
#include <cstdint>

#include "core/parallel.h"
#include "kernels/target_clones.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ONYX_NBITS_AVX512 1
#endif

namespace onyx {
namespace {

// How far ahead of each row's codes the vector kernels ask for memory (the hardware prefetchers
// alone leave a core at half the bandwidth a plain stream reaches).
constexpr int64_t kPrefetchBytes = 1024;

// The `bits`-bit code t of a row of packed bytes, LSB first.
inline int32_t code_at(const uint8_t* bytes, int64_t t, int64_t bits) {
  const int64_t bit = t * bits;
  return int32_t(bytes[bit / 8] >> (bit % 8)) & ((1 << bits) - 1);
}

// y[n] for n in [n_begin, n_end) from one row of a: per block, scale * (a . codes - zero * sum a).
ONYX_TARGET_CLONES void row_portable(const NBitsWeights& w, const float* a, int64_t n_begin, int64_t n_end, float* y) {
  const int64_t blocks = w.blocks(), bytes = w.block_bytes();
  for (int64_t n = n_begin; n < n_end; ++n) {
    float total = 0.f;
    for (int64_t j = 0; j < blocks; ++j) {
      const uint8_t* blob = w.codes + (n * blocks + j) * bytes;
      const int64_t k0 = j * w.block, len = std::min(w.block, w.k - k0);
      float dot = 0.f, sum = 0.f;
      if (w.bits == 4) {
        for (int64_t t = 0; t < len; ++t) {
          dot += a[k0 + t] * float((blob[t >> 1] >> ((t & 1) * 4)) & 15);
          sum += a[k0 + t];
        }
      } else {
        for (int64_t t = 0; t < len; ++t) {
          dot += a[k0 + t] * float(code_at(blob, t, w.bits));
          sum += a[k0 + t];
        }
      }
      total += w.scales[n * blocks + j] * (dot - w.zero(n, j) * sum);
    }
    y[n] = total;
  }
}

#ifdef ONYX_NBITS_AVX512
bool avx512_available() {
  static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return available;
}

// a rearranged for 4-bit codes: in every group of 32, the 16 even positions then the 16 odd ones
// (byte i of a group holds codes 2i (low nibble) and 2i+1 (high)), zeros past K; and the sum of a
// over each block.
void arrange_row_for_nibbles(const NBitsWeights& w, const float* a, float* arranged, float* block_sums) {
  const int64_t padded = w.blocks() * w.block;
  for (int64_t g = 0; g < padded; g += 32)
    for (int64_t i = 0; i < 16; ++i) {
      const int64_t even = g + 2 * i, odd = even + 1;
      arranged[g + i] = even < w.k ? a[even] : 0.f;
      arranged[g + 16 + i] = odd < w.k ? a[odd] : 0.f;
    }
  for (int64_t j = 0; j < w.blocks(); ++j) {
    float s = 0.f;
    for (int64_t t = j * w.block; t < std::min(w.k, (j + 1) * w.block); ++t) s += a[t];
    block_sums[j] = s;
  }
}

// 4-bit codes, block % 32 == 0, R rows of W at once (independent sums, and each vector of the
// arranged a loaded once for R rows): each 16-byte group of codes becomes two vectors of 16
// floats multiplied with the arranged a; a block's vector sum is scaled once. The zero points
// come off afterwards as sum_j scale_j * zero_j * sum(a over block j), 16 blocks a vector.
template <int R>
__attribute__((target("avx512f,avx512bw"))) inline void rows_int4_avx512(const NBitsWeights& w, const float* arranged,
                                                                         const float* block_sums, int64_t n0,
                                                                         float* y) {
  const int64_t blocks = w.blocks(), bytes = w.block_bytes(), groups = w.block / 32;
  const __m128i low4 = _mm_set1_epi8(0x0F);
  const uint8_t* row[R];
  const float* scales[R];
  __m512 acc[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    row[r] = w.codes + (n0 + r) * blocks * bytes;
    scales[r] = w.scales + (n0 + r) * blocks;
    acc[r] = _mm512_setzero_ps();
  }
  for (int64_t j = 0; j < blocks; ++j) {
    const float* av = arranged + j * w.block;
    __m512 block_acc[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) block_acc[r] = _mm512_setzero_ps();
    for (int64_t g = 0; g < groups; ++g) {
      const __m512 a_even = _mm512_loadu_ps(av + g * 32), a_odd = _mm512_loadu_ps(av + g * 32 + 16);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const uint8_t* p = row[r] + j * bytes + g * 16;
        if ((reinterpret_cast<uintptr_t>(p) & 63) < 16) _mm_prefetch(reinterpret_cast<const char*>(p + kPrefetchBytes), _MM_HINT_T0);
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m512 lo = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_and_si128(x, low4)));
        const __m512 hi = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_and_si128(_mm_srli_epi16(x, 4), low4)));
        block_acc[r] = _mm512_fmadd_ps(lo, a_even, block_acc[r]);
        block_acc[r] = _mm512_fmadd_ps(hi, a_odd, block_acc[r]);
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[r] = _mm512_fmadd_ps(block_acc[r], _mm512_set1_ps(scales[r][j]), acc[r]);
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) y[n0 + r] = _mm512_reduce_add_ps(acc[r]) - nbits_zero_point_term(w, n0 + r, block_sums);
}

__attribute__((target("avx512f,avx512bw"))) void row_int4_avx512(const NBitsWeights& w, const float* arranged,
                                                                  const float* block_sums, int64_t n_begin,
                                                                  int64_t n_end, float* y) {
  int64_t n = n_begin;
  for (; n + 4 <= n_end; n += 4) rows_int4_avx512<4>(w, arranged, block_sums, n, y);
  for (; n < n_end; ++n) rows_int4_avx512<1>(w, arranged, block_sums, n, y);
}
#endif

// W's rows [n_begin, n_end) as floats: out[(n - n_begin) * ld + t] = W[n, t] for t < K.
ONYX_TARGET_CLONES void dequantize_rows_portable(const NBitsWeights& w, int64_t n_begin, int64_t n_end, float* out,
                                                 int64_t ld) {
  const int64_t blocks = w.blocks(), bytes = w.block_bytes();
  for (int64_t n = n_begin; n < n_end; ++n) {
    float* row = out + (n - n_begin) * ld;
    for (int64_t j = 0; j < blocks; ++j) {
      const uint8_t* blob = w.codes + (n * blocks + j) * bytes;
      const float s = w.scales[n * blocks + j], zs = w.zero(n, j) * s;
      const int64_t k0 = j * w.block, len = std::min(w.block, w.k - k0);
      if (w.bits == 4) {
        for (int64_t t = 0; t < len; ++t) row[k0 + t] = float((blob[t >> 1] >> ((t & 1) * 4)) & 15) * s - zs;
      } else {
        for (int64_t t = 0; t < len; ++t) row[k0 + t] = float(code_at(blob, t, w.bits)) * s - zs;
      }
    }
  }
}

#ifdef ONYX_NBITS_AVX512
// The same for 4-bit codes with block % 32 == 0: the nibbles of 16 bytes interleaved back into
// code order (low, high, low, ...) and widened, 32 values a step.
__attribute__((target("avx512f,avx512bw"))) void dequantize_rows_int4_avx512(const NBitsWeights& w, int64_t n_begin,
                                                                              int64_t n_end, float* out, int64_t ld) {
  const int64_t blocks = w.blocks(), bytes = w.block_bytes(), groups = w.block / 32;
  const __m128i low4 = _mm_set1_epi8(0x0F);
  for (int64_t n = n_begin; n < n_end; ++n) {
    float* row = out + (n - n_begin) * ld;
    for (int64_t j = 0; j < blocks; ++j) {
      const uint8_t* blob = w.codes + (n * blocks + j) * bytes;
      const float s = w.scales[n * blocks + j];
      const __m512 scale = _mm512_set1_ps(s), zs = _mm512_set1_ps(w.zero(n, j) * s);
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t k0 = j * w.block + g * 32;
        if (k0 >= w.k) break;
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blob + g * 16));
        const __m128i lo = _mm_and_si128(x, low4), hi = _mm_and_si128(_mm_srli_epi16(x, 4), low4);
        const __m512 first = _mm512_fmsub_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi))), scale, zs);
        const __m512 second = _mm512_fmsub_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_unpackhi_epi8(lo, hi))), scale, zs);
        const int64_t left = w.k - k0;
        if (left >= 32) {
          _mm512_storeu_ps(row + k0, first);
          _mm512_storeu_ps(row + k0 + 16, second);
        } else {
          const __mmask16 m0 = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
          const __mmask16 m1 = left <= 16 ? __mmask16(0) : __mmask16((1u << (left - 16)) - 1);
          _mm512_mask_storeu_ps(row + k0, m0, first);
          _mm512_mask_storeu_ps(row + k0 + 16, m1, second);
        }
      }
    }
  }
}
#endif

// One row of a against W's rows [n_begin, n_end), by the fastest form that applies.
struct RowProduct {
  const NBitsWeights& w;
  const float* a;
  bool vector_form;
  std::vector<float> arranged, block_sums;

  RowProduct(const NBitsWeights& weights, const float* row, bool allow_vector) : w(weights), a(row) {
    vector_form = false;
#ifdef ONYX_NBITS_AVX512
    vector_form = allow_vector && w.bits == 4 && w.block % 32 == 0 && avx512_available();
    if (vector_form) {
      arranged.resize(size_t(w.blocks() * w.block));
      block_sums.resize(size_t(w.blocks()));
      arrange_row_for_nibbles(w, a, arranged.data(), block_sums.data());
    }
#endif
  }
  void run(int64_t n_begin, int64_t n_end, float* y) const {
#ifdef ONYX_NBITS_AVX512
    if (vector_form) return row_int4_avx512(w, arranged.data(), block_sums.data(), n_begin, n_end, y);
#endif
    row_portable(w, a, n_begin, n_end, y);
  }
};

void matmul_impl(const NBitsWeights& w, const float* a, int64_t rows, float* y, bool allow_vector) {
  if (w.n <= 0) return;
  const int64_t grain = std::max<int64_t>(8, (int64_t(1) << 16) / std::max<int64_t>(1, w.k));
  for (int64_t r = 0; r < rows; ++r) {
    const RowProduct product(w, a + r * w.k, allow_vector);
    parallel_for(w.n, grain, [&](int64_t b, int64_t e) { product.run(b, e, y + r * w.n); });
  }
}

}  // namespace

void nbits_dequantize_rows(const NBitsWeights& w, int64_t n_begin, int64_t n_end, float* out, int64_t ld) {
#ifdef ONYX_NBITS_AVX512
  if (w.bits == 4 && w.block % 32 == 0 && avx512_available()) return dequantize_rows_int4_avx512(w, n_begin, n_end, out, ld);
#endif
  dequantize_rows_portable(w, n_begin, n_end, out, ld);
}

#ifdef ONYX_NBITS_AVX512
__attribute__((target("avx512f,avx512bw"))) float nbits_zero_point_term(const NBitsWeights& w, int64_t n,
                                                                       const float* block_sums) {
  const int64_t blocks = w.blocks();
  const float* scales = w.scales + n * blocks;
  __m512 sum = _mm512_setzero_ps();
  int64_t j = 0;
  for (; j + 16 <= blocks; j += 16) {
    const __m512 zero =
        w.zero_floats ? _mm512_loadu_ps(w.zero_floats + n * blocks + j)
        : w.zero_codes ? _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(
                             _mm_loadu_si128(reinterpret_cast<const __m128i*>(w.zero_codes + n * blocks + j))))
                       : _mm512_set1_ps(float(int64_t(1) << (w.bits - 1)));
    sum = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_loadu_ps(scales + j), zero), _mm512_loadu_ps(block_sums + j), sum);
  }
  float tail = 0.f;
  for (; j < blocks; ++j) tail += scales[j] * w.zero(n, j) * block_sums[j];
  return _mm512_reduce_add_ps(sum) + tail;
}
#endif

void nbits_matmul(const NBitsWeights& w, const float* a, int64_t rows, float* y) {
  matmul_impl(w, a, rows, y, /*allow_vector=*/true);
}

void nbits_matmul_portable(const NBitsWeights& w, const float* a, int64_t rows, float* y) {
  matmul_impl(w, a, rows, y, /*allow_vector=*/false);
}

}  // namespace onyx
