#include "kernels/packed_row_product.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "core/parallel.h"
#include "kernels/onednn_bf16_matmul.h"

namespace onyx::onednn {
namespace {

constexpr int64_t kPanelWidth = 64;  // columns per panel: four 16-float vectors
constexpr int64_t kKBlock = 16;      // panel rows are padded to a multiple of this
// Rows of a panel (256 bytes each) the prefetch runs ahead of the loads: 8 KB. 16 to 64 rows
// all streamed at 24-28 GB/s on one Zen 4 core (oneDNN's kernels: 15 on the same buffers).
constexpr int64_t kPrefetchRows = 32;
// Panels per parallel chunk: at least ~64 KB of weights, so small products stay on one thread.
constexpr int64_t kMinChunkFloats = 16384;

std::atomic<int64_t> g_products{0};

#define ONYX_ROW_PANELS_TARGET __attribute__((target("avx512f")))
#define ONYX_ROW_PANELS_BF16_TARGET __attribute__((target("avx512f,avx512bf16")))

// Writes panel p's valid columns: y = alpha * (even + odd) (+ bias) (+ y), even and odd being
// the two sets of four 16-column sums.
struct PanelSums {
  __m512 v[4];
};
ONYX_ROW_PANELS_TARGET void store_panel(const RowPanels& rp, PanelSums even, PanelSums odd, int64_t p, float alpha,
                                        const float* bias, bool accumulate, float* y) {
  alignas(64) float sums[kPanelWidth];
  for (int i = 0; i < 4; ++i) _mm512_store_ps(sums + 16 * i, _mm512_add_ps(even.v[i], odd.v[i]));
  const int64_t first = p * kPanelWidth, cols = std::min(kPanelWidth, rp.n - first);
  float* out = y + first;
  for (int64_t j = 0; j < cols; ++j) {
    float v = alpha * sums[j];
    if (bias) v += bias[first + j];
    out[j] = accumulate ? out[j] + v : v;
  }
}

// Columns [p * 64, p * 64 + cols) of the product for panels [p0, p1).
ONYX_ROW_PANELS_TARGET void panels_range(const RowPanels& rp, const float* packed, const float* x, float alpha,
                                         const float* bias, bool accumulate, float* y, int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p) {
    const float* w = packed + p * rp.k_padded * kPanelWidth;
    // Two sets of sums (even and odd rows of the panel) keep eight multiply-adds in flight.
    __m512 e0 = _mm512_setzero_ps(), e1 = e0, e2 = e0, e3 = e0, o0 = e0, o1 = e0, o2 = e0, o3 = e0;
    int64_t k = 0;
    for (; k + 2 <= rp.k; k += 2) {
      const float* r = w + k * kPanelWidth;
      const char* ahead = reinterpret_cast<const char*>(r + kPrefetchRows * kPanelWidth);
      for (int line = 0; line < 8; ++line) _mm_prefetch(ahead + 64 * line, _MM_HINT_T0);  // two rows: 512 bytes
      const __m512 x0 = _mm512_set1_ps(x[k]), x1 = _mm512_set1_ps(x[k + 1]);
      e0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(r), e0);
      e1 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(r + 16), e1);
      e2 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(r + 32), e2);
      e3 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(r + 48), e3);
      o0 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(r + 64), o0);
      o1 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(r + 80), o1);
      o2 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(r + 96), o2);
      o3 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(r + 112), o3);
    }
    if (k < rp.k) {
      const float* r = w + k * kPanelWidth;
      const __m512 x0 = _mm512_set1_ps(x[k]);
      e0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(r), e0);
      e1 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(r + 16), e1);
      e2 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(r + 32), e2);
      e3 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(r + 48), e3);
    }
    store_panel(rp, {e0, e1, e2, e3}, {o0, o1, o2, o3}, p, alpha, bias, accumulate, y);
  }
}

// kRows (2 to 4) rows of x, K apart, against the panels: each panel is read once for all of
// them, with kRows x 64 sums in registers; y's rows are N apart.
template <int kRows>
ONYX_ROW_PANELS_TARGET void panels_range_rows(const RowPanels& rp, const float* packed, const float* x, float alpha,
                                              const float* bias, bool accumulate, float* y, int64_t p0, int64_t p1) {
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t p = p0; p < p1; ++p) {
    const float* w = packed + p * rp.k_padded * kPanelWidth;
    __m512 acc[kRows][4];
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
      for (int c = 0; c < 4; ++c) acc[r][c] = zero;
    for (int64_t k = 0; k < rp.k; ++k) {
      const float* row = w + k * kPanelWidth;
      if ((k & 1) == 0) {  // two panel rows (512 bytes) per prefetch
        const char* ahead = reinterpret_cast<const char*>(row + kPrefetchRows * kPanelWidth);
        for (int line = 0; line < 8; ++line) _mm_prefetch(ahead + 64 * line, _MM_HINT_T0);
      }
      const __m512 w0 = _mm512_loadu_ps(row), w1 = _mm512_loadu_ps(row + 16), w2 = _mm512_loadu_ps(row + 32),
                   w3 = _mm512_loadu_ps(row + 48);
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
        const __m512 xr = _mm512_set1_ps(x[r * rp.k + k]);
        acc[r][0] = _mm512_fmadd_ps(xr, w0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(xr, w1, acc[r][1]);
        acc[r][2] = _mm512_fmadd_ps(xr, w2, acc[r][2]);
        acc[r][3] = _mm512_fmadd_ps(xr, w3, acc[r][3]);
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r)
      store_panel(rp, {acc[r][0], acc[r][1], acc[r][2], acc[r][3]}, {zero, zero, zero, zero}, p, alpha, bias, accumulate,
                  y + r * rp.n);
  }
}

// The bfloat16 panels: `pairs` holds x's rows two by two, as bf16 pairs (the last one padded
// with a zero when K is odd); a pair of panel rows is 64 columns x 2 values (256 bytes).
ONYX_ROW_PANELS_BF16_TARGET void bf16_panels_range(const RowPanels& rp, const uint16_t* packed, const uint32_t* pairs,
                                                   float alpha, const float* bias, bool accumulate, float* y, int64_t p0,
                                                   int64_t p1) {
  const int64_t n_pairs = (rp.k + 1) / 2;
  for (int64_t p = p0; p < p1; ++p) {
    const uint16_t* w = packed + p * rp.k_padded * kPanelWidth;
    __m512 e0 = _mm512_setzero_ps(), e1 = e0, e2 = e0, e3 = e0, o0 = e0, o1 = e0, o2 = e0, o3 = e0;
    int64_t q = 0;
    for (; q + 2 <= n_pairs; q += 2) {
      const uint16_t* r = w + q * 2 * kPanelWidth;
      const char* ahead = reinterpret_cast<const char*>(r + kPrefetchRows * 2 * kPanelWidth);  // the same 8 KB
      for (int line = 0; line < 8; ++line) _mm_prefetch(ahead + 64 * line, _MM_HINT_T0);  // two pairs: 512 bytes
      const __m512bh x0 = (__m512bh)_mm512_set1_epi32(int(pairs[q])), x1 = (__m512bh)_mm512_set1_epi32(int(pairs[q + 1]));
      e0 = _mm512_dpbf16_ps(e0, x0, (__m512bh)_mm512_loadu_si512(r));
      e1 = _mm512_dpbf16_ps(e1, x0, (__m512bh)_mm512_loadu_si512(r + 32));
      e2 = _mm512_dpbf16_ps(e2, x0, (__m512bh)_mm512_loadu_si512(r + 64));
      e3 = _mm512_dpbf16_ps(e3, x0, (__m512bh)_mm512_loadu_si512(r + 96));
      o0 = _mm512_dpbf16_ps(o0, x1, (__m512bh)_mm512_loadu_si512(r + 128));
      o1 = _mm512_dpbf16_ps(o1, x1, (__m512bh)_mm512_loadu_si512(r + 160));
      o2 = _mm512_dpbf16_ps(o2, x1, (__m512bh)_mm512_loadu_si512(r + 192));
      o3 = _mm512_dpbf16_ps(o3, x1, (__m512bh)_mm512_loadu_si512(r + 224));
    }
    if (q < n_pairs) {
      const uint16_t* r = w + q * 2 * kPanelWidth;
      const __m512bh x0 = (__m512bh)_mm512_set1_epi32(int(pairs[q]));
      e0 = _mm512_dpbf16_ps(e0, x0, (__m512bh)_mm512_loadu_si512(r));
      e1 = _mm512_dpbf16_ps(e1, x0, (__m512bh)_mm512_loadu_si512(r + 32));
      e2 = _mm512_dpbf16_ps(e2, x0, (__m512bh)_mm512_loadu_si512(r + 64));
      e3 = _mm512_dpbf16_ps(e3, x0, (__m512bh)_mm512_loadu_si512(r + 96));
    }
    store_panel(rp, {e0, e1, e2, e3}, {o0, o1, o2, o3}, p, alpha, bias, accumulate, y);
  }
}

bool has_avx512f() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}

}  // namespace

bool describe_row_panels(const dnnl::memory::desc& packed, RowPanels& out) {
  const dnnl_memory_desc_t& d = packed.data;
  const bool bf16 = d.data_type == dnnl_bf16;
  if (bf16 ? !cpu_has_avx512_bf16() : (d.data_type != dnnl_f32 || !has_avx512f())) return false;
  if (d.ndims != 2 || d.format_kind != dnnl_blocked || d.offset0 != 0 || d.extra.flags != 0) return false;
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  // float32 "BA16a64b": [16 rows][64 columns] blocks; bfloat16 "BA16a64b2a": [16 row pairs][64 columns][2].
  const int pair = bf16 ? 2 : 1;
  if (b.inner_nblks != (bf16 ? 3 : 2) || b.inner_blks[0] != kKBlock || b.inner_idxs[0] != 0 ||
      b.inner_blks[1] != kPanelWidth || b.inner_idxs[1] != 1 || (bf16 && (b.inner_blks[2] != 2 || b.inner_idxs[2] != 0)))
    return false;
  const int64_t k_block = kKBlock * pair;
  const int64_t k_padded = d.padded_dims[0], n_padded = d.padded_dims[1];
  if (k_padded % k_block != 0 || n_padded % kPanelWidth != 0 || d.dims[0] > k_padded || d.dims[1] > n_padded) return false;
  // Blocks of 16 rows (or row pairs) follow each other inside a panel; panels follow each other.
  if (b.strides[0] != k_block * kPanelWidth || b.strides[1] != k_padded * kPanelWidth) return false;
  out.bf16 = bf16;
  out.k = d.dims[0];
  out.n = d.dims[1];
  out.k_padded = k_padded;
  out.panels = (out.n + kPanelWidth - 1) / kPanelWidth;
  return out.k > 0 && out.n > 0;
}

bool row_panels_take(const RowPanels& panels, int64_t rows) {
  return rows >= 1 && rows <= (panels.bf16 ? 1 : kMaxPanelRows);
}

void row_times_panels(const RowPanels& panels, const void* packed, const float* x, int64_t rows, float alpha,
                      const float* bias, bool accumulate, float* y) {
  g_products.fetch_add(1, std::memory_order_relaxed);
  const int64_t grain = std::max<int64_t>(1, kMinChunkFloats / std::max<int64_t>(1, panels.k_padded * kPanelWidth));
  if (!panels.bf16) {
    const float* w = static_cast<const float*>(packed);
    parallel_for(panels.panels, grain, [&](int64_t p0, int64_t p1) {
      switch (rows) {
        case 1: panels_range(panels, w, x, alpha, bias, accumulate, y, p0, p1); break;
        case 2: panels_range_rows<2>(panels, w, x, alpha, bias, accumulate, y, p0, p1); break;
        case 3: panels_range_rows<3>(panels, w, x, alpha, bias, accumulate, y, p0, p1); break;
        default: panels_range_rows<4>(panels, w, x, alpha, bias, accumulate, y, p0, p1); break;
      }
    });
    return;
  }
  // x rounded to bf16 (to nearest even, as oneDNN's reorder rounds it), two by two: row 2q in
  // the low half of pair q, a zero after an odd last row.
  std::vector<uint16_t> halves(size_t((panels.k + 1) / 2 * 2), 0);
  floats_to_bf16(x, halves.data(), panels.k);
  std::vector<uint32_t> pairs(halves.size() / 2);
  for (size_t q = 0; q < pairs.size(); ++q) pairs[q] = uint32_t(halves[2 * q]) | (uint32_t(halves[2 * q + 1]) << 16);
  parallel_for(panels.panels, std::max<int64_t>(1, grain * 2), [&](int64_t p0, int64_t p1) {
    bf16_panels_range(panels, static_cast<const uint16_t*>(packed), pairs.data(), alpha, bias, accumulate, y, p0, p1);
  });
}

int64_t row_panel_products() { return g_products.load(std::memory_order_relaxed); }

}  // namespace onyx::onednn
