// The quantised convolution shared by QLinearConv (NCHW) and com.microsoft NhwcQLinearConv
// (channels-last, made by the nhwc_layout pass). Inputs, as QLinearConv's:
//   x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B (optional)
// acc = conv(x - x_zero_point, w - w_zero_point) + B (int32, [M]);
// y = saturate(round_half_even(acc * (x_scale * w_scale[m] / y_scale)) + y_zero_point).
// w_scale / w_zero_point are per tensor or per output channel; the rest per tensor; y has
// y_zero_point's type.
//
// When w and w_zero_point are constant and w - w_zero_point fits int8, the product runs through
// oneDNN's int8 convolution (onednn_qconv.h), with the weights packed once. Otherwise NCHW
// computes by the exact reference (im2col + integer GEMM); channels-last requires the fast path
// (the layout pass only makes it where prepare() can take it).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "kernels/kernel.h"
#include "kernels/onednn_qconv.h"
#include "kernels/spatial.h"

namespace onyx {

class QLinearConvRunner : public Kernel {
 public:
  explicit QLinearConvRunner(bool channels_last) : channels_last_(channels_last) {}
  Status prepare(const KernelInfo& info) override;
  Status compute(KernelContext& ctx) const override;
  // True when prepare() packed w for oneDNN.
  bool packed() const { return fast_ != nullptr; }
  // W (input 3) once packed: compute reads only its shape then (every geometry of the packed
  // weights' rank runs through oneDNN).
  std::vector<int> released_constant_inputs() const override {
    return fast_ ? std::vector<int>{3} : std::vector<int>{};
  }
  std::string implementation() const override {
    return std::string(fast_ ? "oneDNN int8 convolution" : "reference (im2col + integer GEMM)") +
           (channels_last_ ? ", channels-last" : "");
  }

 private:
  Status compute_reference(KernelContext& ctx) const;

  bool channels_last_;
  WindowAttrs attrs_;
  int64_t group_ = 1;
  std::unique_ptr<onednn::QuantizedConv> fast_;
};

// The kernel class each op file registers: QLinearConv (NCHW) or NhwcQLinearConv.
template <bool kChannelsLast>
class QLinearConvKernel final : public QLinearConvRunner {
 public:
  QLinearConvKernel() : QLinearConvRunner(kChannelsLast) {}
};

// The int8 weights w - w_zero_point (w_zero_point per tensor or per output channel), or
// nothing when some difference falls outside int8 or the inputs do not fit together.
std::vector<int8_t> weights_minus_zero_point(const Tensor& w, const Tensor& w_zero_point);

}  // namespace onyx
