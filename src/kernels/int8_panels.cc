#include "kernels/int8_panels.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/parallel.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ONYX_INT8_PANELS 1
#endif

namespace onyx {
namespace {

constexpr int64_t kPanelsAtOnce = 4;  // a quad: the panels stored group by group together
constexpr int64_t kQuadGroupBytes = kPanelsAtOnce * 64;
constexpr int64_t kRowsAtOnce = 4;
constexpr int64_t kPrefetchBytes = 2048;  // ahead of the quad's stream, for a single row

#ifdef ONYX_INT8_PANELS
#define ONYX_PANELS_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

// acc[r, 16 p .. 16 p + 15] for rows r < R and panels p < P of the quad at `quad`: K/4 steps,
// each one load of 64 bytes per panel (consecutive in memory) and one broadcast of 4 bytes per row.
template <int R, int P>
ONYX_PANELS_TARGET void block(const int8_t* quad, int64_t groups, const uint8_t* a, int64_t lda, int64_t n_left,
                              int32_t* acc, int64_t ldc, bool prefetch) {
  __m512i sum[R][P];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int p = 0; p < P; ++p) sum[r][p] = _mm512_setzero_si512();
  for (int64_t g = 0; g < groups; ++g) {
    __m512i w[P];
#pragma GCC unroll 4
    for (int p = 0; p < P; ++p) {
      const int8_t* at = quad + g * kQuadGroupBytes + p * 64;
      if (prefetch) _mm_prefetch(reinterpret_cast<const char*>(at + kPrefetchBytes), _MM_HINT_T0);
      w[p] = _mm512_loadu_si512(at);
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      int32_t four;
      std::memcpy(&four, a + r * lda + g * 4, 4);
      const __m512i x = _mm512_set1_epi32(four);
#pragma GCC unroll 4
      for (int p = 0; p < P; ++p) sum[r][p] = _mm512_dpbusd_epi32(sum[r][p], x, w[p]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int p = 0; p < P; ++p) {
      const int64_t cols = std::min<int64_t>(16, n_left - 16 * p);
      if (cols <= 0) continue;
      const __mmask16 mask = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
      _mm512_mask_storeu_epi32(acc + r * ldc + 16 * p, mask, sum[r][p]);
    }
}

// One row of a against a whole quad (decoding): four sums in registers, the quad's stream
// prefetched 2 KB ahead. (block<1, 4> does the same sums, but GCC copies its array of sums
// through spare registers on every step: 7 % slower per decoded token, A/B in the model.)
ONYX_PANELS_TARGET void quad_one_row(const int8_t* quad, int64_t groups, const uint8_t* a, int64_t n_left, int32_t* acc) {
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512(), s2 = _mm512_setzero_si512(),
          s3 = _mm512_setzero_si512();
  for (int64_t g = 0; g < groups; ++g) {
    const int8_t* at = quad + g * kQuadGroupBytes;
    for (int64_t line = 0; line < kQuadGroupBytes; line += 64)
      _mm_prefetch(reinterpret_cast<const char*>(at + kPrefetchBytes + line), _MM_HINT_T0);
    int32_t four;
    std::memcpy(&four, a + g * 4, 4);
    const __m512i x = _mm512_set1_epi32(four);
    s0 = _mm512_dpbusd_epi32(s0, x, _mm512_load_si512(at));
    s1 = _mm512_dpbusd_epi32(s1, x, _mm512_load_si512(at + 64));
    s2 = _mm512_dpbusd_epi32(s2, x, _mm512_load_si512(at + 128));
    s3 = _mm512_dpbusd_epi32(s3, x, _mm512_load_si512(at + 192));
  }
  const __m512i sums[4] = {s0, s1, s2, s3};
  for (int p = 0; p < 4 && 16 * p < n_left; ++p) {
    const int64_t cols = std::min<int64_t>(16, n_left - 16 * p);
    _mm512_mask_storeu_epi32(acc + 16 * p, cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1), sums[p]);
  }
}

template <int R>
ONYX_PANELS_TARGET void block_rows(const int8_t* quad, int64_t groups, int64_t panels, const uint8_t* a, int64_t lda,
                                   int64_t n_left, int32_t* acc, int64_t ldc, bool prefetch) {
  switch (panels) {
    case 1: return block<R, 1>(quad, groups, a, lda, n_left, acc, ldc, prefetch);
    case 2: return block<R, 2>(quad, groups, a, lda, n_left, acc, ldc, prefetch);
    case 3: return block<R, 3>(quad, groups, a, lda, n_left, acc, ldc, prefetch);
    default: return block<R, 4>(quad, groups, a, lda, n_left, acc, ldc, prefetch);
  }
}
#endif

}  // namespace

bool Int8Panels::available() {
#ifdef ONYX_INT8_PANELS
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
  return yes;
#else
  return false;
#endif
}

void Int8Panels::pack(const int8_t* b, int64_t k, int64_t n) {
  k_ = k;
  n_ = n;
  groups_ = (k + 3) / 4;
  panels_ = (n + 15) / 16;
  const int64_t quads = (panels_ + kPanelsAtOnce - 1) / kPanelsAtOnce;
  // 64-byte aligned, so that no 64-byte load straddles two cache lines.
  const size_t bytes = size_t(std::max<int64_t>(1, quads * groups_ * kQuadGroupBytes));
  data_ = std::shared_ptr<int8_t[]>(static_cast<int8_t*>(std::aligned_alloc(64, bytes)), [](int8_t* q) { std::free(q); });
  if (!data_) throw std::bad_alloc();
  std::memset(data_.get(), 0, bytes);
  for (int64_t p = 0; p < panels_; ++p) {
    int8_t* quad = data_.get() + (p / kPanelsAtOnce) * groups_ * kQuadGroupBytes + (p % kPanelsAtOnce) * 64;
    for (int64_t g = 0; g < groups_; ++g)
      for (int64_t c = 0; c < 16; ++c)
        for (int64_t i = 0; i < 4; ++i) {
          const int64_t row = 4 * g + i, col = 16 * p + c;
          if (row < k && col < n) quad[g * kQuadGroupBytes + c * 4 + i] = b[row * n + col];
        }
  }
}

void Int8Panels::multiply(const uint8_t* a, int64_t rows, int32_t* acc) const {
#ifdef ONYX_INT8_PANELS
  if (rows <= 0 || n_ == 0) return;
  // Rows of a read 4 bytes at a time: K not a multiple of 4 is padded with zeros in a copy.
  std::vector<uint8_t> padded;
  int64_t lda = k_;
  if (k_ % 4 != 0) {
    lda = groups_ * 4;
    padded.assign(size_t(rows * lda), 0);
    for (int64_t r = 0; r < rows; ++r) std::memcpy(padded.data() + r * lda, a + r * k_, size_t(k_));
    a = padded.data();
  }
  const int64_t quads = (panels_ + kPanelsAtOnce - 1) / kPanelsAtOnce;
  const bool prefetch = rows < kRowsAtOnce;
  const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(1, groups_ * std::min(rows, kRowsAtOnce)));
  parallel_for(quads, grain, [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t p0 = q * kPanelsAtOnce, panels = std::min(kPanelsAtOnce, panels_ - p0);
      const int8_t* quad = data_.get() + q * groups_ * kQuadGroupBytes;
      for (int64_t r = 0; r < rows; r += kRowsAtOnce) {
        const int64_t take = std::min(kRowsAtOnce, rows - r);
        const uint8_t* ar = a + r * lda;
        int32_t* out = acc + r * n_ + 16 * p0;
        const int64_t n_left = n_ - 16 * p0;
        if (take == 1 && rows == 1) {  // the whole quad exists: its panels past N are zeros
          quad_one_row(quad, groups_, ar, n_left, out);
          continue;
        }
        switch (take) {
          case 1: block_rows<1>(quad, groups_, panels, ar, lda, n_left, out, n_, prefetch); break;
          case 2: block_rows<2>(quad, groups_, panels, ar, lda, n_left, out, n_, prefetch); break;
          case 3: block_rows<3>(quad, groups_, panels, ar, lda, n_left, out, n_, prefetch); break;
          default: block_rows<4>(quad, groups_, panels, ar, lda, n_left, out, n_, prefetch); break;
        }
      }
    }
  });
#else
  (void)a, (void)rows, (void)acc;
#endif
}

}  // namespace onyx
