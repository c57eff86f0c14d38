// The integer convolution shared by ConvInteger and QLinearConv: int8 / uint8 x and w minus
// their zero points, convolved (im2col + GEMM) in wrapping 64-bit integers.
#pragma once
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/spatial.h"

namespace onyx {

struct IntegerConvResult {
  WindowGeometry geometry;
  Shape y_shape;                  // (N, M, O1..On)
  std::vector<uint64_t> acc;      // y_shape elements; truncate to int32 for the ONNX result
};

// x (N, C, D...) minus x_zero_point (one value, or undefined for 0) convolved with w (M, C /
// group, k...) minus w_zero_point (one value or [M]); zero points have their operand's type.
Result<IntegerConvResult> integer_conv(const WindowAttrs& attrs, int64_t group, const Tensor& x, const Tensor& x_zp,
                                       const Tensor& w, const Tensor& w_zp);

}  // namespace onyx
