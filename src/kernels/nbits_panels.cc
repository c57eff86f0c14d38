#include "kernels/nbits_panels.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "core/parallel.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ONYX_NBITS_PANELS 1
#endif

namespace onyx {

// What the kernels read of the panels.
struct NBitsPanelView {
  const uint8_t* panels;
  const uint8_t* zeros;  // 16 codes or 16 floats per (group, block); null: every zero point 2^(bits-1)
  bool float_zeros;
  int64_t n, bits, blocks, block, sub_blocks, stride;
};

namespace {

constexpr int64_t kGroupRows = 16;
constexpr int64_t kScaleBytes = 64;  // 16 float32 scales
constexpr int64_t kPrefetchBytes = 2048;

// 32 codes of 16 rows: `bits` 64-byte vectors.
constexpr int64_t sub_block_bytes(int64_t bits) { return 64 * bits; }

std::shared_ptr<uint8_t[]> zeroed_aligned_bytes(int64_t n) {
  const size_t bytes = size_t(std::max<int64_t>(64, (n + 63) / 64 * 64));
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, bytes));
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return std::shared_ptr<uint8_t[]>(p, [](uint8_t* q) { std::free(q); });
}

// A row of a quantised to int8 per block (as nbits_matmul_int8_activations quantises it), laid
// out for the int8 kernel: per block j and sub-block s, 8 int32s. With 4 bits: the 4 values each
// lane c multiplies with the low nibbles of its bytes (codes 8c, 8c + 2, 8c + 4, 8c + 6 of the
// sub-block), then the 4 for the high nibbles (codes 8c + 1, ... 8c + 7); with 8 bits the 32
// values in order (lane c: codes 4c .. 4c + 3). Zeros past K.
struct Int8Row {
  std::vector<int32_t> q;                // blocks * sub_blocks * 8
  std::vector<float> scale, scaled_sum;  // per block: a_scale, a_scale * sum of q
  std::vector<int32_t> sum;              // per block: sum of q

  Int8Row(const NBitsPanelView& v, int64_t k, const float* a) {
    q.assign(size_t(v.blocks * v.sub_blocks * 8), 0);
    scale.resize(size_t(v.blocks));
    scaled_sum.resize(size_t(v.blocks));
    sum.resize(size_t(v.blocks));
    auto* bytes = reinterpret_cast<int8_t*>(q.data());
    for (int64_t j = 0; j < v.blocks; ++j) {
      const int64_t k0 = j * v.block, k1 = std::min(k, k0 + v.block);
      int32_t block_sum = 0;
      const float s = quantize_block_int8(a, k0, k1, &block_sum, [&](int64_t t, int8_t code) {
        const int64_t u = t - k0, sub = u / 32, c = (u % 32) / 8, e = u % 8;
        if (v.bits == 4)
          bytes[((j * v.sub_blocks + sub) * 8 + (e & 1) * 4 + c) * 4 + e / 2] = code;
        else
          bytes[(j * v.sub_blocks + sub) * 32 + u % 32] = code;
      });
      scale[size_t(j)] = s;
      scaled_sum[size_t(j)] = s * float(block_sum);
      sum[size_t(j)] = block_sum;
    }
  }
};

// A row of a for the float kernel: padded with zeros to whole blocks, and its sum per block.
struct FloatRow {
  std::vector<float> a, sum;

  FloatRow(const NBitsPanelView& v, int64_t k, const float* row) : a(size_t(v.blocks * v.block), 0.f), sum(size_t(v.blocks), 0.f) {
    std::copy(row, row + k, a.begin());
    for (int64_t j = 0; j < v.blocks; ++j) {
      float s = 0.f;
      for (int64_t t = j * v.block; t < std::min(k, (j + 1) * v.block); ++t) s += row[t];
      sum[size_t(j)] = s;
    }
  }
};

#ifdef ONYX_NBITS_PANELS
#define ONYX_PANELS_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,fma")))

bool cpu_has_vnni() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
  return yes;
}

ONYX_PANELS_TARGET inline void prefetch_block(const uint8_t* p, int64_t stride) {
  for (int64_t line = 0; line < stride; line += 64)
    _mm_prefetch(reinterpret_cast<const char*>(p + kPrefetchBytes + line), _MM_HINT_T0);
}

// The block's 16 scales and their products with the zero points.
ONYX_PANELS_TARGET inline void block_scales(const NBitsPanelView& v, const uint8_t* p, int64_t g, int64_t j, __m512& scale,
                                            __m512& scaled_zero) {
  scale = _mm512_load_ps(reinterpret_cast<const float*>(p + v.sub_blocks * sub_block_bytes(v.bits)));
  const int64_t at = (g * v.blocks + j) * kGroupRows;
  __m512 zero;
  if (!v.zeros)
    zero = _mm512_set1_ps(float(int64_t(1) << (v.bits - 1)));
  else if (v.float_zeros)
    zero = _mm512_load_ps(reinterpret_cast<const float*>(v.zeros) + at);
  else
    zero = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(v.zeros + at))));
  scaled_zero = _mm512_mul_ps(zero, scale);
}

ONYX_PANELS_TARGET inline void store_group(const NBitsPanelView& v, int64_t g, __m512 value, float* y) {
  const int64_t n0 = g * kGroupRows, cols = std::min(kGroupRows, v.n - n0);
  const __mmask16 mask = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  _mm512_mask_storeu_ps(y + n0, mask, value);
}

// y[r][16 g ..] for groups [g0, g1): per block, the sub-blocks' integer sums (two chains per
// row); with integer zero points the block's sum less zero * sum q, exact in int32, then times
// scale * a_scale (one rounding a block, as the contract reads); float zero points come off as
// scale * zero * a_scale * sum q.
template <int R, int BITS>
ONYX_PANELS_TARGET void groups_int8(const NBitsPanelView& v, const Int8Row* const* rows, int64_t g0, int64_t g1, float* y,
                                    int64_t ldy) {
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  constexpr int64_t kSubBytes = sub_block_bytes(BITS);
  for (int64_t g = g0; g < g1; ++g) {
    const uint8_t* p = v.panels + g * v.blocks * v.stride;
    __m512 acc[R], zero_acc[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[r] = zero_acc[r] = _mm512_setzero_ps();
    for (int64_t j = 0; j < v.blocks; ++j, p += v.stride) {
      prefetch_block(p, v.stride);
      __m512i sum0[R], sum1[R];
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) sum0[r] = sum1[r] = _mm512_setzero_si512();
      for (int64_t s = 0; s < v.sub_blocks; ++s) {
        if constexpr (BITS == 4) {
#pragma GCC unroll 4
          for (int c = 0; c < 4; ++c) {
            const __m512i w = _mm512_load_si512(p + s * kSubBytes + c * 64);
            const __m512i low = _mm512_and_si512(w, low4), high = _mm512_and_si512(_mm512_srli_epi16(w, 4), low4);
#pragma GCC unroll 4
            for (int r = 0; r < R; ++r) {
              const int32_t* q = rows[r]->q.data() + (j * v.sub_blocks + s) * 8;
              sum0[r] = _mm512_dpbusd_epi32(sum0[r], low, _mm512_set1_epi32(q[c]));
              sum1[r] = _mm512_dpbusd_epi32(sum1[r], high, _mm512_set1_epi32(q[4 + c]));
            }
          }
        } else {
#pragma GCC unroll 8
          for (int c = 0; c < 8; c += 2) {
            const __m512i w0 = _mm512_load_si512(p + s * kSubBytes + c * 64);
            const __m512i w1 = _mm512_load_si512(p + s * kSubBytes + c * 64 + 64);
#pragma GCC unroll 4
            for (int r = 0; r < R; ++r) {
              const int32_t* q = rows[r]->q.data() + (j * v.sub_blocks + s) * 8;
              sum0[r] = _mm512_dpbusd_epi32(sum0[r], w0, _mm512_set1_epi32(q[c]));
              sum1[r] = _mm512_dpbusd_epi32(sum1[r], w1, _mm512_set1_epi32(q[c + 1]));
            }
          }
        }
      }
      const __m512 scale = _mm512_load_ps(reinterpret_cast<const float*>(p + v.sub_blocks * kSubBytes));
      if (v.float_zeros) {
        __m512 unused, scaled_zero;
        block_scales(v, p, g, j, unused, scaled_zero);
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          const __m512 sum = _mm512_cvtepi32_ps(_mm512_add_epi32(sum0[r], sum1[r]));
          acc[r] = _mm512_fmadd_ps(sum, _mm512_mul_ps(scale, _mm512_set1_ps(rows[r]->scale[size_t(j)])), acc[r]);
          zero_acc[r] = _mm512_fmadd_ps(scaled_zero, _mm512_set1_ps(rows[r]->scaled_sum[size_t(j)]), zero_acc[r]);
        }
      } else {
        const __m512i zero =
            v.zeros ? _mm512_cvtepu8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(v.zeros + (g * v.blocks + j) * kGroupRows)))
                    : _mm512_set1_epi32(1 << (BITS - 1));
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          const __m512i exact = _mm512_sub_epi32(_mm512_add_epi32(sum0[r], sum1[r]),
                                                 _mm512_mullo_epi32(zero, _mm512_set1_epi32(rows[r]->sum[size_t(j)])));
          acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(exact), _mm512_mul_ps(scale, _mm512_set1_ps(rows[r]->scale[size_t(j)])),
                                   acc[r]);
        }
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) store_group(v, g, _mm512_sub_ps(acc[r], zero_acc[r]), y + r * ldy);
  }
}

// Code t of lane w as float32: 4 bits by a shift and vpermps from the table 0 .. 15, 8 bits by a
// shift and a mask.
template <int BITS>
ONYX_PANELS_TARGET inline __m512 code_of(__m512i w, int t, __m512 table) {
  if constexpr (BITS == 4) return _mm512_permutexvar_ps(_mm512_srli_epi32(w, unsigned(4 * t)), table);
  return _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(w, unsigned(8 * t)), _mm512_set1_epi32(0xFF)));
}

// The float form: four chains per row (by lane c mod 4), summed per block and scaled.
template <int R, int BITS>
ONYX_PANELS_TARGET void groups_float(const NBitsPanelView& v, const FloatRow* const* rows, int64_t g0, int64_t g1, float* y,
                                     int64_t ldy) {
  const __m512 table = _mm512_setr_ps(0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f, 10.f, 11.f, 12.f, 13.f, 14.f, 15.f);
  constexpr int kCodesPerLane = 32 / BITS;
  constexpr int64_t kSubBytes = sub_block_bytes(BITS);
  for (int64_t g = g0; g < g1; ++g) {
    const uint8_t* p = v.panels + g * v.blocks * v.stride;
    __m512 acc[R], zero_acc[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[r] = zero_acc[r] = _mm512_setzero_ps();
    for (int64_t j = 0; j < v.blocks; ++j, p += v.stride) {
      prefetch_block(p, v.stride);
      __m512 dot[R][4];
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int c = 0; c < 4; ++c) dot[r][c] = _mm512_setzero_ps();
      for (int64_t s = 0; s < v.sub_blocks; ++s) {
#pragma GCC unroll 8
        for (int c = 0; c < BITS; ++c) {
          const __m512i w = _mm512_load_si512(p + s * kSubBytes + c * 64);
          const int64_t at = j * v.block + s * 32 + c * kCodesPerLane;
#pragma GCC unroll 8
          for (int t = 0; t < kCodesPerLane; ++t) {
            const __m512 code = code_of<BITS>(w, t, table);
#pragma GCC unroll 4
            for (int r = 0; r < R; ++r)
              dot[r][c % 4] = _mm512_fmadd_ps(code, _mm512_set1_ps(rows[r]->a[size_t(at + t)]), dot[r][c % 4]);
          }
        }
      }
      __m512 scale, scaled_zero;
      block_scales(v, p, g, j, scale, scaled_zero);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const __m512 sum = _mm512_add_ps(_mm512_add_ps(dot[r][0], dot[r][1]), _mm512_add_ps(dot[r][2], dot[r][3]));
        acc[r] = _mm512_fmadd_ps(sum, scale, acc[r]);
        zero_acc[r] = _mm512_fmadd_ps(scaled_zero, _mm512_set1_ps(rows[r]->sum[size_t(j)]), zero_acc[r]);
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) store_group(v, g, _mm512_sub_ps(acc[r], zero_acc[r]), y + r * ldy);
  }
}

// Columns [16 g - n_begin, ...) of out (at most `cols` of them) for every t < K: code t of each
// of the 16 rows as a vector (code_of), then (code - zero) * scale.
template <int BITS>
ONYX_PANELS_TARGET void group_columns(const NBitsPanelView& v, int64_t k, int64_t g, int64_t cols, float* out, int64_t ld) {
  const __m512 table = _mm512_setr_ps(0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f, 10.f, 11.f, 12.f, 13.f, 14.f, 15.f);
  constexpr int64_t kCodesPerLane = 32 / BITS;
  const __mmask16 mask = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const uint8_t* p = v.panels + g * v.blocks * v.stride;
  for (int64_t j = 0; j < v.blocks; ++j, p += v.stride) {
    __m512 scale, scaled_zero;
    block_scales(v, p, g, j, scale, scaled_zero);
    for (int64_t s = 0; s < v.sub_blocks; ++s)
      for (int64_t c = 0; c < BITS; ++c) {
        const int64_t t0 = j * v.block + s * 32 + c * kCodesPerLane;
        if (t0 >= k) return;
        const __m512i w = _mm512_load_si512(p + s * sub_block_bytes(BITS) + c * 64);
        const int64_t steps = std::min<int64_t>(kCodesPerLane, k - t0);
        for (int64_t t = 0; t < steps; ++t)
          _mm512_mask_storeu_ps(out + (t0 + t) * ld, mask, _mm512_fmsub_ps(code_of<BITS>(w, int(t), table), scale, scaled_zero));
      }
  }
}
#endif

// Groups of W per parallel_for task: about 32 KB of panels.
int64_t group_grain(const NBitsPanelView& v) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, v.blocks * v.stride)); }

#ifdef ONYX_NBITS_PANELS
struct Int8Pass {
  template <int R, int BITS>
  static void run(const NBitsPanelView& v, const Int8Row* const* rows, int64_t g0, int64_t g1, float* y, int64_t ldy) {
    groups_int8<R, BITS>(v, rows, g0, g1, y, ldy);
  }
};
struct FloatPass {
  template <int R, int BITS>
  static void run(const NBitsPanelView& v, const FloatRow* const* rows, int64_t g0, int64_t g1, float* y, int64_t ldy) {
    groups_float<R, BITS>(v, rows, g0, g1, y, ldy);
  }
};

// y (rows x N) for `rows` rows of a, prepared as Row (Int8Row, FloatRow), kRowsAtOnce rows per
// pass over W; Pass::run<R, BITS> takes R rows over groups [g0, g1).
template <class Row, class Pass>
void in_passes(const NBitsPanelView& v, int64_t k, int64_t groups, const float* a, int64_t rows, float* y) {
  constexpr int64_t kRowsAtOnce = NBitsPanels::kRowsAtOnce;
  std::vector<Row> prepared;
  prepared.reserve(size_t(rows));
  for (int64_t r = 0; r < rows; ++r) prepared.emplace_back(v, k, a + r * k);
  for (int64_t r0 = 0; r0 < rows; r0 += kRowsAtOnce) {
    const int64_t take = std::min(kRowsAtOnce, rows - r0);
    const Row* row[kRowsAtOnce] = {};
    for (int64_t r = 0; r < take; ++r) row[r] = &prepared[size_t(r0 + r)];
    float* out = y + r0 * v.n;
    parallel_for(groups, group_grain(v), [&](int64_t g0, int64_t g1) {
      switch (take * 16 + v.bits) {
        case 16 + 8: return Pass::template run<1, 8>(v, row, g0, g1, out, v.n);
        case 32 + 8: return Pass::template run<2, 8>(v, row, g0, g1, out, v.n);
        case 48 + 8: return Pass::template run<3, 8>(v, row, g0, g1, out, v.n);
        case 64 + 8: return Pass::template run<4, 8>(v, row, g0, g1, out, v.n);
        case 16 + 4: return Pass::template run<1, 4>(v, row, g0, g1, out, v.n);
        case 32 + 4: return Pass::template run<2, 4>(v, row, g0, g1, out, v.n);
        case 48 + 4: return Pass::template run<3, 4>(v, row, g0, g1, out, v.n);
        default: return Pass::template run<4, 4>(v, row, g0, g1, out, v.n);
      }
    });
  }
}
#endif

}  // namespace

bool NBitsPanels::supports(const NBitsWeights& w) {
#ifdef ONYX_NBITS_PANELS
  // Blocks up to 4096 codes keep a block's integer sums (|q| <= 127 times codes <= 255) in int32.
  return (w.bits == 4 || w.bits == 8) && w.block >= 32 && w.block <= 4096 && w.block % 32 == 0 && w.n > 0 && w.k > 0 &&
         cpu_has_vnni();
#else
  (void)w;
  return false;
#endif
}

NBitsPanels::NBitsPanels(const NBitsWeights& w) : n_(w.n), k_(w.k), bits_(w.bits), block_(w.block) {
  blocks_ = w.blocks();
  groups_ = (n_ + kGroupRows - 1) / kGroupRows;
  sub_blocks_ = block_ / 32;
  const int64_t sub_bytes = sub_block_bytes(bits_), lane_bytes = 4 * bits_;  // a row's bytes of a sub-block
  block_stride_ = sub_blocks_ * sub_bytes + kScaleBytes;
  panel_bytes_ = groups_ * blocks_ * block_stride_;
  panels_ = zeroed_aligned_bytes(panel_bytes_);
  zeros_kind_ = w.zero_floats ? Zeros::kFloats : w.zero_codes ? Zeros::kCodes : Zeros::kNone;
  if (zeros_kind_ != Zeros::kNone) {
    zero_bytes_ = groups_ * blocks_ * kGroupRows * (zeros_kind_ == Zeros::kFloats ? 4 : 1);
    zeros_ = zeroed_aligned_bytes(zero_bytes_);
  }
  const int64_t row_block_bytes = w.block_bytes();
  for (int64_t n = 0; n < n_; ++n) {
    const int64_t g = n / kGroupRows, r = n % kGroupRows;
    for (int64_t j = 0; j < blocks_; ++j) {
      uint8_t* dst = panels_.get() + (g * blocks_ + j) * block_stride_;
      const uint8_t* src = w.codes + (n * blocks_ + j) * row_block_bytes;
      for (int64_t s = 0; s < sub_blocks_; ++s)
        for (int64_t c = 0; c < bits_; ++c) std::memcpy(dst + s * sub_bytes + c * 64 + r * 4, src + s * lane_bytes + c * 4, 4);
      std::memcpy(dst + sub_blocks_ * sub_bytes + r * 4, &w.scales[n * blocks_ + j], 4);
      const int64_t z = (g * blocks_ + j) * kGroupRows + r;
      if (zeros_kind_ == Zeros::kCodes) zeros_[size_t(z)] = w.zero_codes[n * blocks_ + j];
      if (zeros_kind_ == Zeros::kFloats) std::memcpy(zeros_.get() + z * 4, &w.zero_floats[n * blocks_ + j], 4);
    }
  }
}

NBitsPanelView NBitsPanels::view() const {
  return NBitsPanelView{panels_.get(), zeros_.get(), zeros_kind_ == Zeros::kFloats, n_, bits_, blocks_, block_, sub_blocks_, block_stride_};
}

void NBitsPanels::multiply_int8_activations(const float* a, int64_t rows, float* y) const {
#ifdef ONYX_NBITS_PANELS
  in_passes<Int8Row, Int8Pass>(view(), k_, groups_, a, rows, y);
#else
  (void)a, (void)rows, (void)y;
#endif
}

void NBitsPanels::multiply(const float* a, int64_t rows, float* y) const {
#ifdef ONYX_NBITS_PANELS
  in_passes<FloatRow, FloatPass>(view(), k_, groups_, a, rows, y);
#else
  (void)a, (void)rows, (void)y;
#endif
}

void NBitsPanels::dequantize_rows(int64_t n_begin, int64_t n_end, float* out, int64_t ld) const {
  // The rows back in MatMulNBits's packing (codes, float scales, zero points), then
  // nbits_dequantize_rows on them: the panels keep no second copy of W.
  const int64_t rows = n_end - n_begin, row_block_bytes = block_ * bits_ / 8;
  const int64_t sub_bytes = sub_block_bytes(bits_), lane_bytes = 4 * bits_;
  if (rows <= 0) return;
  std::vector<uint8_t> codes(size_t(rows * blocks_ * row_block_bytes));
  std::vector<uint8_t> zero_codes(zeros_kind_ == Zeros::kCodes ? size_t(rows * blocks_) : 0);
  std::vector<float> scales(size_t(rows * blocks_)), zero_floats(zeros_kind_ == Zeros::kFloats ? size_t(rows * blocks_) : 0);
  for (int64_t n = n_begin; n < n_end; ++n) {
    const int64_t g = n / kGroupRows, r = n % kGroupRows, i = n - n_begin;
    for (int64_t j = 0; j < blocks_; ++j) {
      const uint8_t* src = panels_.get() + (g * blocks_ + j) * block_stride_;
      uint8_t* dst = codes.data() + (i * blocks_ + j) * row_block_bytes;
      for (int64_t s = 0; s < sub_blocks_; ++s)
        for (int64_t c = 0; c < bits_; ++c) std::memcpy(dst + s * lane_bytes + c * 4, src + s * sub_bytes + c * 64 + r * 4, 4);
      std::memcpy(&scales[size_t(i * blocks_ + j)], src + sub_blocks_ * sub_bytes + r * 4, 4);
      const int64_t z = (g * blocks_ + j) * kGroupRows + r;
      if (zeros_kind_ == Zeros::kCodes) zero_codes[size_t(i * blocks_ + j)] = zeros_[size_t(z)];
      if (zeros_kind_ == Zeros::kFloats) std::memcpy(&zero_floats[size_t(i * blocks_ + j)], zeros_.get() + z * 4, 4);
    }
  }
  const NBitsWeights w{rows, k_, bits_, block_, codes.data(), scales.data(),
                       zero_codes.empty() ? nullptr : zero_codes.data(), zero_floats.empty() ? nullptr : zero_floats.data()};
  nbits_dequantize_rows(w, 0, rows, out, ld);
}

void NBitsPanels::dequantize_columns(int64_t n_begin, int64_t n_end, float* out, int64_t ld) const {
#ifdef ONYX_NBITS_PANELS
  const NBitsPanelView v = view();
  for (int64_t n0 = n_begin; n0 < n_end; n0 += kGroupRows)
    bits_ == 8 ? group_columns<8>(v, k_, n0 / kGroupRows, std::min(kGroupRows, n_end - n0), out + (n0 - n_begin), ld)
               : group_columns<4>(v, k_, n0 / kGroupRows, std::min(kGroupRows, n_end - n0), out + (n0 - n_begin), ld);
#else
  (void)n_begin, (void)n_end, (void)out, (void)ld;
#endif
}

}  // namespace onyx
