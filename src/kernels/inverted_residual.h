// When MobileNetV2's block pays as one InvertedResidual kernel (kernels/cpu/inverted_residual.cc):
// when its expanded (or depthwise) tensor for one image would not stay in cache, so computing
// it in bands saves its trip to memory. Smaller blocks run faster as three convolutions
// (oneDNN's), so the inverted_residual_fusion pass fuses only blocks this says yes to.
#pragma once
#include <cstdint>

namespace onyx {

// The size of one image's expanded tensor above which blocks run in bands: 1 MB, or
// ONYX_INVERTED_RESIDUAL_BAND_KB (for measuring; 0: never banded).
int64_t inverted_residual_band_bytes();

// Whether a block with these per-image pixel counts (before and after the depthwise stride)
// and expanded channels computes in bands.
inline bool inverted_residual_in_bands(int64_t in_pixels, int64_t out_pixels, int64_t mid_channels) {
  const int64_t budget = inverted_residual_band_bytes();
  const int64_t pixels = in_pixels > out_pixels ? in_pixels : out_pixels;
  // In double: a model's static dims may be large enough to overflow the product.
  return budget > 0 && double(pixels) * double(mid_channels) * double(sizeof(float)) > double(budget);
}

}  // namespace onyx
