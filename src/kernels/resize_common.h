// Shared by Resize and Upsample: attribute parsing, the per-axis coordinate transforms and
// interpolation weights, and the N-D resampling itself.
//
// Interpolation is separable: each axis maps every output coordinate to a few input
// indices with weights (one for nearest, two for linear, four for cubic, more with
// antialias), and the N-D result is the product of these 1-D filters, as in the ONNX
// reference. Output coordinates map back to input coordinates by coordinate_transformation_mode.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel.h"

namespace onyx {

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class ResizeCoordMode {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize,
};
enum class ResizeNearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };
enum class KeepAspectRatioPolicy { kStretch, kNotLarger, kNotSmaller };

struct ResizeAttrs {
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoordMode coord = ResizeCoordMode::kHalfPixel;
  ResizeNearestMode nearest = ResizeNearestMode::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation_value = 0;
  bool antialias = false;
  KeepAspectRatioPolicy keep_aspect = KeepAspectRatioPolicy::kStretch;
  std::vector<int64_t> axes;  // opset 18+: the axes that roi / scales / sizes refer to
};

// Parses the attributes of Resize for info.opset(). With `legacy` (Upsample, Resize-10) only
// `mode` exists (nearest or linear) and coordinates are asymmetric with floor rounding.
Result<ResizeAttrs> parse_resize_attrs(const KernelInfo& info, bool legacy);
// The same for a node that carries Resize's attributes as Resize-`opset` defines them (training's
// ResizeGrad, in its own domain).
Result<ResizeAttrs> parse_resize_attrs(const KernelInfo& info, bool legacy, int64_t opset);

// How one axis is resized.
struct ResizeAxis {
  int64_t in_len = 0;
  int64_t out_len = 0;
  double scale = 1;           // output / input, used by the coordinate transforms
  double length_resized = 0;  // the (possibly fractional) resized length: scale * in_len, or out_len from sizes
  double roi_start = 0, roi_end = 1;  // tf_crop_and_resize only
};

// Output length for a scale: floor(in_len * scale); INVALID_ARGUMENT for a non-positive,
// non-finite or overflowing scale.
Result<int64_t> resized_length(int64_t in_len, double scale);

// The resize of every dim of an input of shape `x` for one run, from the node's inputs (read on
// the host): opset 10 (X, scales); opset 11+ (X, roi, scales, sizes), exactly one of scales
// and sizes non-empty, each with one entry per resized axis (attrs.axes, or all dims).
// INVALID_ARGUMENT for inputs that do not fit.
Result<std::vector<ResizeAxis>> resolve_resize_axes(const KernelContext& ctx, const ResizeAttrs& attrs, bool legacy,
                                                    const Shape& x);

// The 1-D filter of one axis: output coordinate o reads taps [o*k, o*k + k) of index (clamped
// into [0, in_len)) with their weights; outside[o] is 1 where tf_crop_and_resize extrapolates.
// identity: out == in and every output reads only its own index.
struct ResizeFilter {
  int64_t k = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<uint8_t> outside;
  bool identity = false;
};
ResizeFilter make_resize_filter(const ResizeAttrs& attrs, const ResizeAxis& axis);

// Resamples x into y, whose shape is the out_len of every axis (one entry per dim of x).
// Nearest works for every dtype; linear and cubic for numeric dtypes.
Status resize_tensor(const KernelContext& ctx, const ResizeAttrs& attrs, const std::vector<ResizeAxis>& axes,
                     const Tensor& x, Tensor& y);

}  // namespace onyx
