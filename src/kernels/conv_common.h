// The im2col + GEMM convolution shared by Conv, ConvInteger and QLinearConv, and the shape
// checks they share.
#pragma once
#include <cstdint>

#include "core/shape.h"
#include "core/status.h"
#include "kernels/spatial.h"

namespace onyx {

// Checks X (N, C, D1..Dn) against W (M, C / group, k1..kn) and the kernel_shape attribute,
// and resolves the window geometry. INVALID_ARGUMENT when they do not fit together.
Result<WindowGeometry> resolve_conv(const WindowAttrs& attrs, int64_t group, const Shape& x, const Shape& w);

// y (N, M, out...) = conv(x (N, C, in...), w (M, C / group, kernel...)) over geometry g,
// without bias. Instantiated for float, double and uint64_t (wrapping integer arithmetic).
template <typename T>
void conv_gemm(const T* x, const T* w, T* y, int64_t batch, int64_t channels, int64_t maps, int64_t group,
               const WindowGeometry& g);

}  // namespace onyx
