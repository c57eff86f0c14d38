// A depthwise 2-D convolution over channels-last rows, for kernels that compute a band of
// output rows at a time from rows they hold in cache (InvertedResidual): one filter per
// channel, unit dilation, float32, then a clamp (the fused Relu / Clip, or none).
//
//   out[r][w][c] = clamp(bias[c] + sum over (i, j) of in[r*sh - pt + i][w*sw - pl + j][c] * taps[i*kw + j][c])
//
// Input rows outside [0, in_h) and columns outside [0, in_w) are zero padding and are never
// read. Input row ih (0 <= ih < in_h) lies at src + (ih - src_row0) * in_w * channels, so a
// caller may hold only the rows the band needs. Taps are tap-major, [kh * kw][channels]
// (depthwise_taps reorders ONNX's (C, 1, kh, kw) weight into it).
#pragma once
#include <cstdint>
#include <vector>

namespace onyx {

struct DepthwiseGeometry {
  int64_t in_h = 0, in_w = 0, out_w = 0, channels = 0;
  int64_t kh = 0, kw = 0, sh = 1, sw = 1, pt = 0, pl = 0;
};

// ONNX's depthwise weight (channels, 1, kh, kw) as taps [kh * kw][channels].
std::vector<float> depthwise_taps(const float* w, int64_t channels, int64_t kh, int64_t kw);

// Output rows [r0, r1) into dst (row r at dst + (r - r0) * out_w * channels); bias may be
// null; every result is clamped to [lo, hi]. Serial: callers split rows over threads.
void depthwise_rows(const DepthwiseGeometry& g, const float* src, int64_t src_row0, const float* taps,
                    const float* bias, int64_t r0, int64_t r1, float* dst, float lo, float hi);
// The same without AVX-512 (what depthwise_rows runs on CPUs without it); for tests.
void depthwise_rows_portable(const DepthwiseGeometry& g, const float* src, int64_t src_row0, const float* taps,
                             const float* bias, int64_t r0, int64_t r1, float* dst, float lo, float hi);

}  // namespace onyx
