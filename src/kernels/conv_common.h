// The im2col + GEMM convolution shared by Conv, ConvInteger and QLinearConv, and the shape
// checks they share; the attribute parsing of all the convolutions; the type and bias
// handling shared by Conv and ConvTranspose.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "kernels/dispatch.h"
#include "kernels/gemm.h"
#include "kernels/kernel.h"
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

// Conv, ConvTranspose, ConvInteger and QLinearConv: parses the window attributes and a
// positive 'group'.
inline Status parse_conv_attrs(const KernelInfo& info, WindowAttrs* attrs, int64_t* group) {
  ONYX_RETURN_IF_ERROR(parse_window_attrs(info, attrs));
  *group = info.attr_int("group", 1);
  if (*group < 1) return invalid_model("group must be positive, got ", *group);
  return Status::Ok();
}

// Conv and ConvTranspose: X, W and the optional B (inputs 0, 1, 2) must share one type.
inline Status check_conv_types(const KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const bool has_bias = ctx.has_input(2);
  const Tensor& b = ctx.input(2);
  if (w.dtype() != x.dtype() || (has_bias && b.dtype() != x.dtype()))
    return invalid_argument("X, W and B must share one type, got ", x.describe(), ", ", w.describe(),
                            has_bias ? ", " + b.describe() : std::string());
  return Status::Ok();
}

// Conv and ConvTranspose after the geometry: checks that the optional B is [maps], allocates
// Y (N, maps, spatial...) and, unless it is empty, calls body(xc, wc, yc) in the compute type
// CT of X's float type to write the convolution without bias into the zero-filled yc
// (N, maps, spatial...) (body may return a Status, which an error of stops here); then adds B
// and stores yc into Y.
template <typename Body>
Status run_float_conv(KernelContext& ctx, int64_t maps, const std::vector<int64_t>& spatial, Body&& body) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const bool has_bias = ctx.has_input(2);
  const Tensor& b = ctx.input(2);
  if (has_bias && (b.rank() != 1 || b.dim(0) != maps))
    return invalid_argument("bias ", b.describe(), " must have shape [", maps, "]");
  const int64_t batch = x.dim(0);
  Shape y_shape{batch, maps};
  y_shape.insert(y_shape.end(), spatial.begin(), spatial.end());
  ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), y_shape));
  if (y->numel() == 0) return Status::Ok();

  return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
    using CT = compute_t<T>;
    std::vector<CT> xbuf, wbuf, ybuf;
    const CT* xc = as_compute_type<CT>(x.data<T>(), x.numel(), xbuf);
    const CT* wc = as_compute_type<CT>(w.data<T>(), w.numel(), wbuf);
    CT* yc = nullptr;
    if constexpr (std::is_same_v<T, CT>) {
      yc = y->data<T>();  // zero-filled by allocate_output
    } else {
      ybuf.assign(size_t(y->numel()), CT(0));
      yc = ybuf.data();
    }
    if constexpr (std::is_same_v<decltype(body(xc, wc, yc)), Status>) {
      ONYX_RETURN_IF_ERROR(body(xc, wc, yc));
    } else {
      body(xc, wc, yc);
    }
    const int64_t plane = y->numel() / (batch * maps);
    if (has_bias) {
      const T* bias = b.data<T>();
      for (int64_t i = 0; i < batch * maps; ++i) {
        const CT bv = static_cast<CT>(bias[i % maps]);
        for (int64_t o = 0; o < plane; ++o) yc[i * plane + o] += bv;
      }
    }
    if constexpr (!std::is_same_v<T, CT>) {
      T* out = y->data<T>();
      for (int64_t i = 0; i < y->numel(); ++i) out[i] = static_cast<T>(yc[i]);
    }
    return Status::Ok();
  });
}

}  // namespace onyx
