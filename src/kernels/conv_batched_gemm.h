// Float32 convolutions as one GEMM per group over the whole batch, for the convolutions
// whose weights far outnumber their activations (ResNet-18's last layers in training at
// 64x64: 2x2 outputs, 512x512x3x3 weights). oneDNN's direct kernels want the weights in a blocked layout,
// and reordering non-constant weights (training's parameters, which change every step) every
// run, plus reading or writing them once per image, costs more there than the products;
// here the weights are read or written once, as stored. (The gradient in x stays with oneDNN:
// as a GEMM with the weights transposed plus col2im it measured 1.5-2x slower there.)
//
// Shapes are the forward convolution's: x (N, C, in...), w (M, C / group, k...),
// y (N, M, out...), NCHW order, over a WindowGeometry whose `in` is x's spatial shape and
// `out` y's (any rank im2col takes). The columns of the whole batch, (C / group * K) x
// (N * out), are working memory from the context (KernelContext::allocate_scratch).
#pragma once
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "kernels/kernel.h"
#include "kernels/spatial.h"

namespace onyx {

// Whether these functions are the better way for this convolution: its weights outnumber its
// activations (x and y together) 16 times or more (conv_batched_gemm.cc says why 16), and the
// batch's columns stay within kColumnBudget elements per group. ONYX_CONV_BATCHED_GEMM=0 turns them off and =1 on wherever the columns fit, for
// measuring.
bool conv_batched_gemm_preferred(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape,
                                 int64_t group, const WindowGeometry& g);

// y = conv(x, w), without bias; writes all of y.
Status conv_batched_gemm_forward(const KernelContext& ctx, const std::vector<int64_t>& x_shape,
                                 const std::vector<int64_t>& w_shape, int64_t group, const WindowGeometry& g,
                                 const float* x, const float* w, float* y);

// dw = the gradient of conv(x, w) in w for output gradient dy; writes all of dw.
Status conv_batched_gemm_backward_weights(const KernelContext& ctx, const std::vector<int64_t>& x_shape,
                                          const std::vector<int64_t>& w_shape, int64_t group,
                                          const WindowGeometry& g, const float* x, const float* dy, float* dw);

}  // namespace onyx
