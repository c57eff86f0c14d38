// Float32 convolution backward-data through oneDNN: the gradient of a convolution with
// respect to its input, which is also ConvTranspose.
//
//   dx (N, C, in...) = the adjoint, in x, of y = conv(x, w), applied to dy (N, M, out...)
//
// with w (M, C / group, k...) in the forward Conv's layout. ConvTranspose's weight
// (C_t, M_t / group, k...) is that layout with M = C_t and C = M_t, so ConvTranspose(X, W) is
// run() with dy = X and dx = its output. Shapes are the forward convolution's, NCHW order,
// over a WindowGeometry whose `in` is dx's spatial shape and `out` dy's (onednn_conv_problem.h
// says which geometries oneDNN takes: supports()). oneDNN computes in the layout it prefers
// (blocked on AVX-512): dy and w are reordered into it and dx back, in per-thread scratch
// memory (ONYX_CONV_BACKWARD_LAYOUT=plain computes on NCHW
// instead: onednn_conv_problem.h). Primitives are cached
// per shape (bounded). run() is thread-safe.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/status.h"
#include "kernels/spatial.h"

namespace onyx::onednn {

class ConvBackwardData {
 public:
  // True when run() can take this problem.
  static bool supports(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape, int64_t group,
                       const WindowGeometry& g);
  // Writes all of dx (its previous contents are ignored). INVALID_ARGUMENT where !supports().
  Status run(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape, int64_t group,
             const WindowGeometry& g, const float* dy, const float* w, float* dx) const;

 private:
  struct Entry;
  Result<std::shared_ptr<const Entry>> entry_for(const std::vector<int64_t>& x_shape,
                                                 const std::vector<int64_t>& w_shape, int64_t group,
                                                 const WindowGeometry& g) const;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Entry>> cache_;
};

}  // namespace onyx::onednn
