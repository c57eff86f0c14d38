// The device steps around a cuDNN convolution (conv.cc, fused_conv.cc): the epilogue that
// adds the bias and the residual and applies the activation in one pass over Y, the prefill
// of Y with bias and residual for a convolution that adds its sum to Y (float16), and the
// explicit zero padding of X for the asymmetric pads cuDNN cannot take. Host declarations;
// the kernels are in conv_epilogue.cu.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/status.h"

namespace onyx {
namespace cuda_conv {

// FusedConv's activations (kernels/fused_activation.h), in a form device code can take.
enum class Activation { kNone, kRelu, kClip, kLeakyRelu, kSigmoid, kTanh, kHardSigmoid };

struct Epilogue {
  const void* bias = nullptr;      // [channels] of Y's type, or null
  const void* residual = nullptr;  // Y's shape and type, or null
  Activation activation = Activation::kNone;
  float alpha = 0.f, beta = 0.f;   // Clip: min, max; LeakyRelu: alpha; HardSigmoid: alpha, beta
  bool any() const { return bias || residual || activation != Activation::kNone; }
};

// In place over Y (count elements, NC... order, `channels` channels of `plane` elements):
// y = activation(y + bias[c] + residual), in float32; `half`: Y is float16, else float32.
Status launch_epilogue(void* y, int64_t count, int64_t channels, int64_t plane, bool half, const Epilogue& e,
                       cudaStream_t stream);

// Fills Y (as launch_epilogue lays it out) with bias[c] + residual, summed in float32 and
// rounded once to Y's type; either may be null (then it counts as zeros).
Status launch_prefill(void* y, int64_t count, int64_t channels, int64_t plane, bool half, const void* bias,
                      const void* residual, cudaStream_t stream);

// Pads `planes` planes of `rank` (1..3) spatial dims `in` into `out` = in + pad_begin +
// pad_end, with zeros: y[p, o] = x[p, o - pad_begin] inside the input, else 0. Elements of
// `itemsize` bytes (2 or 4).
struct PadGeometry {
  int rank = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, pad_begin[3] = {0, 0, 0};
};
Status launch_zero_pad(const void* x, void* y, int64_t planes, const PadGeometry& g, size_t itemsize,
                       cudaStream_t stream);

}  // namespace cuda_conv
}  // namespace onyx
