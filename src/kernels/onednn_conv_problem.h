// What the oneDNN convolution backward passes (onednn_conv_backward_data,
// onednn_conv_backward_weights) share: one float32 convolution problem in oneDNN's terms, the
// check that oneDNN can take it, and the forward primitive descriptor that oneDNN's backward
// primitives need as a hint.
//
// The problem is always the forward convolution's: x (N, C, in...), w (M, C / group, k...),
// y (N, M, out...), NCHW order, over a WindowGeometry whose `in` is x's spatial shape and `out`
// y's. Its backward passes compute dx from dy and w, and dw from x and dy.
#pragma once
#include <cstdint>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "kernels/spatial.h"

namespace onyx::onednn {

// Which layout the backward convolutions compute in: kAny lets oneDNN choose (blocked on
// AVX-512: the activations and weights are reordered into it and the results back), kPlain
// computes on NCHW and (M, C / group, k...) directly, where oneDNN 2.6 has only im2col + GEMM,
// one image at a time: 1.5-3x slower on ResNet-18's training step, its small late layers
// included (measured in bench/RESULTS.md). kAny unless ONYX_CONV_BACKWARD_LAYOUT=plain, for
// measuring.
enum class BackwardLayout { kAny, kPlain };

// False when ONYX_CONV_BACKWARD=0: the kernels then take their GEMM paths, for measuring.
bool backward_enabled();

struct ConvProblem {
  dnnl::memory::dims x, y, w;  // w is (G, M / G, C / G, k...) when group > 1
  dnnl::memory::dims strides, dilations, pad_l, pad_r;  // dilations count the gaps (onyx's - 1)
  dnnl::memory::desc x_user, y_user, w_user;  // dense, as onyx stores them
  BackwardLayout layout = BackwardLayout::kAny;  // what the backward passes compute in
  std::vector<int64_t> key;  // everything above, for per-shape caches
};

// Builds the problem (its layout as ONYX_CONV_BACKWARD_LAYOUT chooses), or returns false where oneDNN's backward convolutions cannot take it (then the caller
// computes another way) or !backward_enabled(). oneDNN takes 1 to 3 spatial dims, shapes that
// fit (C and M divisible by group, w's dims matching), no empty tensor, pads >= 0, and `out`
// exactly the forward size (in + pads - dilated kernel) / stride + 1. Never throws.
bool make_conv_problem(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape, int64_t group,
                       const WindowGeometry& g, ConvProblem* p);

// The forward (training) primitive descriptor oneDNN's backward primitives take as a hint,
// with every tensor in `layout`. Throws dnnl::error.
dnnl::convolution_forward::primitive_desc forward_hint(const ConvProblem& p, BackwardLayout layout);

// A memory descriptor of `d` in `layout`: format_tag::any, or `user` itself for kPlain.
dnnl::memory::desc layout_desc(const dnnl::memory::desc& user, BackwardLayout layout);

}  // namespace onyx::onednn
