// Max pooling (1 to 3 spatial dims) of float32, uint8 or int8 through oneDNN, shared by MaxPool and
// NhwcMaxPool: y = the maximum over each window of x, padding never winning. x is
// (N, C, D...) in NCHW order, or channels-last (N, D..., C) when `channels_last`; shapes are
// passed in NCHW order. Unit dilations only (supports()). Primitives are cached per input
// shape (bounded); run() is thread-safe.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/data_type.h"
#include "core/status.h"
#include "kernels/spatial.h"

namespace onyx::onednn {

class MaxPool {
 public:
  explicit MaxPool(bool channels_last) : channels_last_(channels_last) {}
  static bool supports(const WindowGeometry& g);
  static bool supports(DataType t) { return t == DataType::kFloat || t == DataType::kUInt8 || t == DataType::kInt8; }
  // x and y of type `type` (one that supports(type) takes).
  Status run(const std::vector<int64_t>& x_shape, const WindowGeometry& g, DataType type, const void* x, void* y) const;

 private:
  struct Entry {
    dnnl::pooling_forward::primitive_desc pd;
    dnnl::pooling_forward prim;
  };
  bool channels_last_;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Entry>> cache_;
};

}  // namespace onyx::onednn
