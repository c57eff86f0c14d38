// expand_to: a tensor materialised at a broadcast shape (numpy rules), for the rare inputs a
// fused kernel's fast path cannot read in place.
#pragma once
#include <cstring>

#include "kernels/broadcast.h"

namespace onyx {

// `t` broadcast to `shape` as a new contiguous tensor (t itself when the shapes already match).
// INVALID_ARGUMENT when t does not broadcast to `shape`; not for string tensors.
inline Result<Tensor> expand_to(const Tensor& t, const Shape& shape) {
  if (t.shape() == shape) return t;
  ONYX_ASSIGN_OR_RETURN(Shape check, broadcast_shapes({t.shape(), shape}));
  if (check != shape) return invalid_argument(t.describe(), " does not broadcast to ", shape_to_string(shape));
  ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::create(t.dtype(), shape));
  const size_t item = t.itemsize();
  const char* src = static_cast<const char*>(t.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  for_each_broadcast(shape, {t.shape()}, [&](int64_t i, const int64_t* off) {
    std::memcpy(dst + size_t(i) * item, src + size_t(off[0]) * item, item);
  });
  return out;
}

}  // namespace onyx
