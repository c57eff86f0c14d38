// Static output shapes of the sliding-window ops: Conv, ConvInteger, QLinearConv, ConvTranspose
// and the pools. Mirrors the kernels' arithmetic (kernels/spatial.h): forward ops give
// floor((in + pads - dilated kernel) / stride) + 1 (ceil with ceil_mode, dropping a last window
// that would start in the end padding), ceil(in / stride) for SAME_*, no padding for VALID.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/op_rule.h"

namespace onyx::ops {

// The window attributes as written on the node; empty vectors mean "not given".
struct WindowParams {
  std::vector<int64_t> kernel_shape, strides, dilations, pads;
  std::string auto_pad = "NOTSET";
  bool ceil_mode = false;
};
WindowParams read_window_params(const InferenceContext& ctx);

// Number of spatial dims of an (N, C, D1..Dn) input, from its rank or else from the window
// attributes / the weight's rank; -1 when nothing tells.
int64_t spatial_rank(const SymbolicShape& x, const SymbolicShape& w, const WindowParams& p);

// Output size of forward spatial dim d (of r) for input size `in` and kernel size `kernel`;
// nullopt when either is unknown or the attributes do not fit.
std::optional<int64_t> forward_out_dim(const WindowParams& p, size_t d, size_t r, std::optional<int64_t> in,
                                       std::optional<int64_t> kernel);

// Conv-like: X (N, C, D...) at input x_index, W (M, C/group, k...) at input w_index ->
// (N, M, O...) of element type `elem`.
Status infer_conv_like(InferenceContext& ctx, int x_index, int w_index, DataType elem);
// The same for a 2-D convolution with X (input 0) and Y channels-last: X (N, H, W, C), W (input
// w_index) (M, C/group, kH, kW) -> Y (N, H', W', M) of type elem.
Status infer_nhwc_conv_like(InferenceContext& ctx, int w_index, DataType elem);

// Pools: X (N, C, D...) -> (N, C, O...) of X's type for every output (MaxPool's Indices are
// set separately by its rule).
SymbolicShape pool_output_shape(const InferenceContext& ctx);

}  // namespace onyx::ops
