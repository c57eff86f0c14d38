// Float32 convolution backward-weights through oneDNN: the gradient of a convolution with
// respect to its weights (and optionally its bias).
//
//   dw (M, C / group, k...) = the adjoint, in w, of y = conv(x, w), applied to dy (N, M, out...)
//   db (M)                  = dy summed over N and the spatial dims
//
// x is (N, C, in...); shapes are the forward convolution's, NCHW order, over a WindowGeometry
// whose `in` is x's spatial shape and `out` dy's (supports() says which geometries oneDNN
// takes). oneDNN computes in the layout it prefers (blocked on AVX-512): x and dy are
// reordered into it and dw back, in per-thread scratch memory (ONYX_CONV_BACKWARD_LAYOUT=plain
// computes on the plain layouts instead: onednn_conv_problem.h). Primitives are cached per shape (bounded). run() is
// thread-safe.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/status.h"
#include "kernels/spatial.h"

namespace onyx::onednn {

class ConvBackwardWeights {
 public:
  // True when run() can take this problem.
  static bool supports(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape, int64_t group,
                       const WindowGeometry& g);
  // Writes all of dw, and of db unless it is null (previous contents are ignored).
  // INVALID_ARGUMENT where !supports().
  Status run(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape, int64_t group,
             const WindowGeometry& g, const float* x, const float* dy, float* dw, float* db) const;

 private:
  struct Entry;
  Result<std::shared_ptr<const Entry>> entry_for(const std::vector<int64_t>& x_shape,
                                                 const std::vector<int64_t>& w_shape, int64_t group,
                                                 const WindowGeometry& g, bool bias) const;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Entry>> cache_;
};

}  // namespace onyx::onednn
