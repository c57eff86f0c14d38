// nbits_matmul_int8_activations: MatMulNBits's product with a quantised to int8, as its
// accuracy_level 4 permits. Per block j of K (W's blocks):
//   a_scale_j = max |a| / 127,  q_t = round_half_even(a_t / a_scale_j) in [-127, 127]
//   y[n] = sum_j scale_nj * a_scale_j * (sum_t q_t * code_nt - zero_nj * sum_t q_t)
// The integer sums are exact (int32); on CPUs with AVX-512 VNNI, 64 codes and 64 q multiply in
// one instruction (vpdpbusd, codes unsigned, q signed), four rows of W at a time.
#include <algorithm>
#include <cmath>

#include "core/parallel.h"
#include "kernels/nbits_matmul.h"
#include "kernels/target_clones.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ONYX_NBITS_VNNI 1
#endif

namespace onyx {
namespace {

// Where a[t] goes (t counted from the start of K): with blocks of whole groups of 32 codes
// (16 bytes, byte i holding codes 2i and 2i + 1), each 64 values of K become
//   [even positions of the first 32 | even of the next 32 | odd of the first 32 | odd of the next]
// which is how the vector kernel lays out the nibbles of 32 bytes of codes; otherwise in order.
inline int64_t arranged_position(int64_t t, int64_t block) {
  if (block % 32 != 0) return t;
  const int64_t u = t & 63;
  return (t - u) + (u & 1) * 32 + ((u >> 5) << 4) + ((u & 31) >> 1);
}

// One row of a, quantised per block: q arranged (zeros past K, padded to a multiple of 64), the
// block scales, and a_scale_j * sum_t q_t for the zero-point term.
struct QuantizedRow {
  std::vector<int8_t> q;
  std::vector<float> scales, scaled_sums;

  QuantizedRow(const NBitsWeights& w, const float* a) {
    const int64_t blocks = w.blocks();
    q.assign(size_t((blocks * w.block + 63) / 64 * 64), 0);
    scales.resize(size_t(blocks));
    scaled_sums.resize(size_t(blocks));
    for (int64_t j = 0; j < blocks; ++j) {
      const int64_t k0 = j * w.block, k1 = std::min(w.k, k0 + w.block);
      int32_t sum = 0;
      const float scale = quantize_block_int8(a, k0, k1, &sum,
                                              [&](int64_t t, int8_t code) { q[size_t(arranged_position(t, w.block))] = code; });
      scales[size_t(j)] = scale;
      scaled_sums[size_t(j)] = scale * float(sum);
    }
  }
};

ONYX_TARGET_CLONES void rows_portable(const NBitsWeights& w, const QuantizedRow& a, int64_t n_begin, int64_t n_end,
                                      float* y) {
  const int64_t blocks = w.blocks(), bytes = w.block_bytes();
  for (int64_t n = n_begin; n < n_end; ++n) {
    float total = 0.f;
    for (int64_t j = 0; j < blocks; ++j) {
      const uint8_t* blob = w.codes + (n * blocks + j) * bytes;
      int32_t dot = 0;
      for (int64_t t = 0; t < w.block; ++t) {
        const int64_t bit = t * w.bits;
        const int32_t code = int32_t(blob[bit / 8] >> (bit % 8)) & ((1 << w.bits) - 1);
        dot += code * a.q[size_t(arranged_position(j * w.block + t, w.block))];
      }
      const float s = w.scales[n * blocks + j];
      total += s * a.scales[size_t(j)] * float(dot) - s * w.zero(n, j) * a.scaled_sums[size_t(j)];
    }
    y[n] = total;
  }
}

#ifdef ONYX_NBITS_VNNI
bool vnni_available() {
  static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                                __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
  return available;
}

#define ONYX_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,fma")))

// How far ahead of each row's codes the kernels ask for memory (the hardware prefetchers alone
// leave a core at half the bandwidth a plain stream reaches).
constexpr int64_t kPrefetchBytes = 1024;

// 32 bytes of 4-bit codes as 64 bytes: [lo of bytes 0-15 | lo of 16-31 | hi of 0-15 | hi of 16-31].
ONYX_VNNI_TARGET inline __m512i codes_of(const uint8_t* p) {
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i lo = _mm256_and_si256(x, low4), hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low4);
  return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

// 64 codes (32 bytes) of R rows at once: the low nibbles then the high ones make 64 unsigned
// bytes [lo of bytes 0-15 | lo of 16-31 | hi of 0-15 | hi of 16-31], matching a's arrangement,
// and one vpdpbusd sums them with q into 16 int32 lanes (4 products each).
//
// Blocks of 32: the 32 bytes are blocks j and j + 1, lanes 0-3 and 8-11 belong to j, 4-7 and
// 12-15 to j + 1; each lane's sum is scaled by its block's scale * a_scale in float. An odd last
// block is taken alone, 32 codes in a 256-bit vpdpbusd. Blocks of 64 or more: the int32 sums of
// the block's chunks add up first and are scaled once.
template <int R>
ONYX_VNNI_TARGET inline void rows_vnni(const NBitsWeights& w, const QuantizedRow& a, const float* pair_scales,
                                       int64_t n0, float* y) {
  const int64_t blocks = w.blocks(), bytes = w.block_bytes();
  const uint8_t* row[R];
  const float* scales[R];
  __m512 acc[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    row[r] = w.codes + (n0 + r) * blocks * bytes;
    scales[r] = w.scales + (n0 + r) * blocks;
    acc[r] = _mm512_setzero_ps();
  }
  if (w.block == 32) {
    const __m512i lanes = _mm512_set_epi32(1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0);
    const int64_t pairs = blocks / 2;
    for (int64_t p = 0; p < pairs; ++p) {
      const __m512i q = _mm512_loadu_si512(a.q.data() + p * 64);
      const __m512 a_scales = _mm512_loadu_ps(pair_scales + p * 16);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        _mm_prefetch(reinterpret_cast<const char*>(row[r] + p * 32 + kPrefetchBytes), _MM_HINT_T0);
        const __m512i dot = _mm512_dpbusd_epi32(_mm512_setzero_si512(), codes_of(row[r] + p * 32), q);
        const __m512 two = _mm512_castpd_ps(_mm512_castpd128_pd512(_mm_load_sd(reinterpret_cast<const double*>(scales[r] + 2 * p))));
        const __m512 scale = _mm512_mul_ps(_mm512_permutexvar_ps(lanes, two), a_scales);
        acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), scale, acc[r]);
      }
    }
    if (blocks % 2) {
      const int64_t j = blocks - 1;
      // The block is the first half of its 64-chunk: its even positions at 0-15, odd at 32-47.
      const __m256i q = _mm256_set_m128i(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a.q.data() + j * 32 + 32)),
                                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.q.data() + j * 32)));
      const __m128i low4x = _mm_set1_epi8(0x0F);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row[r] + j * 16));
        const __m128i lo = _mm_and_si128(x, low4x), hi = _mm_and_si128(_mm_srli_epi16(x, 4), low4x);
        const __m256i dot = _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1), q);
        acc[r] = _mm512_add_ps(acc[r], _mm512_castps256_ps512(_mm256_mul_ps(_mm256_cvtepi32_ps(dot),
                                                                             _mm256_set1_ps(scales[r][j] * a.scales[size_t(j)]))));
      }
    }
  } else {
    const int64_t chunks = w.block / 64;
    for (int64_t j = 0; j < blocks; ++j) {
      __m512i dot[R];
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) dot[r] = _mm512_setzero_si512();
      for (int64_t c = 0; c < chunks; ++c) {
        const __m512i q = _mm512_loadu_si512(a.q.data() + j * w.block + c * 64);
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) dot[r] = _mm512_dpbusd_epi32(dot[r], codes_of(row[r] + j * bytes + c * 32), q);
      }
      const float a_scale = a.scales[size_t(j)];
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r)
        acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[r]), _mm512_set1_ps(scales[r][j] * a_scale), acc[r]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) y[n0 + r] = _mm512_reduce_add_ps(acc[r]) - nbits_zero_point_term(w, n0 + r, a.scaled_sums.data());
}

ONYX_VNNI_TARGET void rows_vnni_range(const NBitsWeights& w, const QuantizedRow& a, const float* pair_scales,
                                      int64_t n_begin, int64_t n_end, float* y) {
  int64_t n = n_begin;
  for (; n + 4 <= n_end; n += 4) rows_vnni<4>(w, a, pair_scales, n, y);
  for (; n < n_end; ++n) rows_vnni<1>(w, a, pair_scales, n, y);
}
#endif

void product(const NBitsWeights& w, const float* a, int64_t rows, float* y, bool allow_vector) {
  bool vector_form = false;
#ifdef ONYX_NBITS_VNNI
  vector_form = allow_vector && nbits_int8_activations_vectorized(w);
#endif
  const int64_t grain = std::max<int64_t>(8, (int64_t(1) << 16) / std::max<int64_t>(1, w.k));
  for (int64_t r = 0; r < rows; ++r) {
    const QuantizedRow quantized(w, a + r * w.k);
    // Blocks of 32, in pairs: a_scale of each of the 16 lanes (see rows_vnni).
    std::vector<float> pair_scales;
    if (vector_form && w.block == 32)
      for (int64_t p = 0; p < w.blocks() / 2; ++p)
        for (int64_t lane = 0; lane < 16; ++lane) pair_scales.push_back(quantized.scales[size_t(2 * p + (lane / 4) % 2)]);
    float* out = y + r * w.n;
    parallel_for(w.n, grain, [&](int64_t b, int64_t e) {
#ifdef ONYX_NBITS_VNNI
      if (vector_form) return rows_vnni_range(w, quantized, pair_scales.data(), b, e, out);
#endif
      rows_portable(w, quantized, b, e, out);
    });
  }
}

}  // namespace

bool nbits_int8_activations_vectorized(const NBitsWeights& w) {
#ifdef ONYX_NBITS_VNNI
  return w.bits == 4 && (w.block == 32 || w.block % 64 == 0) && vnni_available();
#else
  (void)w;
  return false;
#endif
}

void nbits_matmul_int8_activations(const NBitsWeights& w, const float* a, int64_t rows, float* y) {
  product(w, a, rows, y, /*allow_vector=*/true);
}

void nbits_matmul_int8_activations_portable(const NBitsWeights& w, const float* a, int64_t rows, float* y) {
  product(w, a, rows, y, /*allow_vector=*/false);
}

}  // namespace onyx
