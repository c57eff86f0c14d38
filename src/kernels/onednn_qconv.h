// Quantised N-d convolution (1 to 3 spatial dims) through oneDNN's int8 kernels (VNNI where the
// CPU has it), shared by QLinearConv and its channels-last form:
//
//   y = saturate(round((conv(x - x_zero_point, w) + bias[m]) * scale[m]) + y_zero_point)
//
// x is uint8 or int8, (N, C, D...) or channels-last (N, D..., C); w is int8 (M, C / group,
// k...) with a zero point of 0 (callers subtract theirs first, when the difference fits int8);
// bias is int32 [M] or absent; scale is one value or [M]; y is uint8 or int8 in x's layout.
// Rounding is half to even, as QuantizeLinear's; padding stands for real zero (x_zero_point).
// Shapes are always passed in NCHW order. w is packed once, into the layout the first
// primitive prefers. Primitives are cached per (shape, types, zero points, scales), bounded;
// run() is thread-safe.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/status.h"
#include "kernels/spatial.h"

namespace onyx::onednn {

struct QuantizedConvArgs {
  std::vector<int64_t> x_shape;  // NCHW order
  const WindowGeometry* geometry = nullptr;
  const void* x = nullptr;
  bool x_signed = false;  // int8 x, else uint8
  int32_t x_zero_point = 0;
  const int32_t* bias = nullptr;  // [M] or null
  const std::vector<float>* scale = nullptr;  // 1 or M values
  void* y = nullptr;
  bool y_signed = false;  // int8 y, else uint8
  int32_t y_zero_point = 0;
};

class QuantizedConv {
 public:
  explicit QuantizedConv(bool channels_last) : channels_last_(channels_last) {}
  // Keeps a copy of w (M, C / group, k...), int8 with zero point 0. Call once, before run().
  Status set_weights(std::vector<int8_t> w, std::vector<int64_t> w_shape, int64_t group);
  const std::vector<int64_t>& w_shape() const { return w_shape_; }
  int64_t group() const { return group_; }
  static bool supports(const WindowGeometry& g) { return g.rank() >= 1 && g.rank() <= 3; }
  Status run(const QuantizedConvArgs& a) const;

 private:
  struct Entry {
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward prim;
    dnnl::memory::desc x_user, y_user;
    bool reorder_x = false, reorder_y = false;
    dnnl::reorder::primitive_desc x_to_inner_pd, y_to_user_pd;
    dnnl::reorder x_to_inner, y_to_user;
    dnnl::memory own_w;  // w in this primitive's layout, when it differs from the packed one
    bool has_own_w = false;
  };
  Result<std::shared_ptr<const Entry>> entry_for(const QuantizedConvArgs& a) const;

  bool channels_last_;
  std::vector<int8_t> w_;
  std::vector<int64_t> w_shape_;
  int64_t group_ = 1;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Entry>> cache_;
  mutable std::shared_ptr<const dnnl::memory> packed_w_;  // set by the first entry, under mu_
};

}  // namespace onyx::onednn
