// Float32 N-d convolution (1 to 3 spatial dims) through oneDNN, shared by Conv and the fused
// convolutions built on it.
//
//   y = activation(conv(x, w) [+ bias] [+ z])
//
// x is (N, C, D...) in NCHW order, w is (M, C / group, k...), y is (N, M, O...) in NCHW
// order, or x and y channels-last (N, D..., C) when `channels_last`; bias is [M]. Shapes are
// always passed in NCHW order. 3x3 convolutions may compute by Winograd (onednn_conv.cc).
// From NCHW, oneDNN may compute in a blocked layout: the input
// is reordered into it and the result back, both in per-thread scratch memory; channels-last
// computes in place, without reorders. A constant w is packed
// once, at the first run, into the layout the primitive prefers; any other w is reordered
// into that layout at every run (per-thread scratch). Primitives are cached per input shape
// (bounded). run() is thread-safe.
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

struct ConvEpilogue {
  bool channels_last = false;  // x and y are (N, D..., C)
  bool bias = false;
  bool accumulate = false;  // add a residual z, of y's shape and layout
  dnnl::algorithm activation = dnnl::algorithm::undef;  // undef: none
  float activation_alpha = 0.0f, activation_beta = 0.0f;
};

class Conv {
 public:
  explicit Conv(ConvEpilogue epilogue) : epilogue_(epilogue) {}
  // w is constant: packed once and the packed copy used. `w` must stay valid and unchanged
  // for this object's lifetime and be passed to every run().
  void set_constant_w(const float* w) { constant_w_ = w; }
  // True when oneDNN can take this geometry (1 to 3 spatial dims).
  static bool supports(const WindowGeometry& g) { return g.rank() >= 1 && g.rank() <= 3; }
  // `z` is the residual when the epilogue accumulates (else ignored); it must not overlap y:
  // it is copied into y (in parallel) and added by a sum post-op.
  Status run(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape, int64_t group,
             const WindowGeometry& g, const float* x, const float* w, const float* bias, const float* z,
             float* y) const;
  // Whether run() with these arguments computes by Winograd (see onednn_conv.cc); for tests.
  Result<bool> uses_winograd(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape, int64_t group,
                             const WindowGeometry& g, const float* w) const;

 public:
  struct Reorder {
    dnnl::reorder::primitive_desc pd;
    dnnl::reorder prim;
  };

 private:
  struct Entry {
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward prim;
    dnnl::memory::desc x_user, y_user;  // NCHW as onyx stores them
    bool reorder_x = false, reorder_y = false;
    Reorder x_to_inner, y_to_user, y_to_inner;  // set when the matching reorder_* is
    bool uses_packed_w = false;
    bool reorder_w = false;  // w is not packed and the primitive wants another layout:
    Reorder w_to_inner;      // reordered into per-thread scratch every run
    bool winograd = false;  // computed by Winograd rather than directly
  };
  Result<std::shared_ptr<const Entry>> entry_for(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape,
                                                 int64_t group, const WindowGeometry& g, const float* w) const;

  ConvEpilogue epilogue_;
  const float* constant_w_ = nullptr;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Entry>> cache_;
  mutable std::unique_ptr<dnnl::memory> packed_w_;  // set once, under mu_
  mutable bool packing_tried_ = false;
};

}  // namespace onyx::onednn
