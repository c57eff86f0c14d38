// A few rows times a constant float32 weight matrix that oneDNN has packed, read in oneDNN's
// own packed layout: the products of token-by-token decoding (one row per sequence).
//
//   y (rows x N) = alpha * x (rows x K) * B (K x N) [+ bias] [+ y]      rows 1 to 4
//
// For float32 matmuls on AVX-512 CPUs oneDNN packs B as "BA16a64b": panels of 64 columns, each
// panel K_pad x 64 floats, contiguous (K_pad: K rounded up to 16, N padded to 64 with zeros).
// oneDNN's own kernels, built for many rows, read such a B at about 15 GB/s when A has one row
// (Zen 4, one core; its plain read bandwidth is 24 GB/s). This kernel walks each panel once,
// front to back, with its 64 sums in registers and software prefetch ahead of the loads, so a
// decoding step streams its weights at the memory's speed; two to four rows share each load of
// a panel (float32 only), so a small batch reads the weights once. Panels are shared out to the
// intra-op threads. No copy of the weights is made: the kernel reads the buffer oneDNN packed.
//
// B packed as bfloat16 (MatMul::pack_b's bf16, on CPUs with AVX512_BF16) is "BA16a64b2a": the
// same panels with rows in pairs, each column's two values side by side. x is rounded to
// bfloat16 (to nearest even, as oneDNN's reorder rounds the row before its bf16 product) and
// each pair of rows is one vdpbf16ps per 16 columns, sums in float32.
#pragma once
#include <cstdint>

#include <oneapi/dnnl/dnnl.hpp>

namespace onyx::onednn {

// Where the panels of a packed B lie. Valid only when describe_row_panels() said so.
struct RowPanels {
  int64_t k = 0, n = 0;   // B's logical dims
  int64_t k_padded = 0;   // rows per panel
  int64_t panels = 0;     // ceil(n / 64)
  bool bf16 = false;      // bfloat16 pairs of rows (else float32 rows)
};

// True when `packed` is a 2-D B in one of the panel layouts above (float32 on a CPU with
// AVX-512F, bfloat16 on one with AVX512_BF16); then `out` says where its panels are. False for
// any other layout (other ISAs' blocks), which the caller leaves to oneDNN.
bool describe_row_panels(const dnnl::memory::desc& packed, RowPanels& out);

// The most rows row_times_panels takes at once (float32 panels; bfloat16 panels take one).
inline constexpr int64_t kMaxPanelRows = 4;
// Whether row_times_panels takes `rows` rows against these panels.
bool row_panels_take(const RowPanels& panels, int64_t rows);

// y[i][j] = alpha * sum_k x[i][k] * B[k][j] (+ bias[j] when bias) (+ y[i][j] when accumulate),
// for i < rows (row_panels_take must hold), j < n; x and y row-major (K and N apart). `panels`
// from describe_row_panels of the memory whose data is `packed` (float32 or bfloat16 elements
// as panels.bf16 says); bias may be null.
void row_times_panels(const RowPanels& panels, const void* packed, const float* x, int64_t rows, float alpha,
                      const float* bias, bool accumulate, float* y);

// How many products row_times_panels has computed in this process (tests check the route).
int64_t row_panel_products();

}  // namespace onyx::onednn
