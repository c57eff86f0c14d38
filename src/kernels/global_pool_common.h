// The computation shared by GlobalAveragePool and GlobalMaxPool: X (N, C, D1..Dn) ->
// Y (N, C, 1..1), each of the N*C planes reduced to one value.
#pragma once
#include <cstdint>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {

// Y[p] = reduce(plane, size) for each plane of input 0 (floating types), where reduce is
// called as reduce(const T* plane, int64_t size) and returns a compute_t<T>.
template <typename Reduce>
Status compute_global_pool(KernelContext& ctx, Reduce reduce) {
  const Tensor& x = ctx.input(0);
  if (x.rank() < 2) return invalid_argument("input must have rank 2 or more (N, C, ...), got ", x.describe());
  Shape y_shape = x.shape();
  for (size_t d = 2; d < y_shape.size(); ++d) y_shape[d] = 1;
  ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), y_shape));
  const int64_t planes = x.dim(0) * x.dim(1);
  if (planes == 0) return Status::Ok();
  const int64_t size = x.numel() / planes;
  return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
    const T* in = x.data<T>();
    T* out = y->data<T>();
    for (int64_t p = 0; p < planes; ++p) out[p] = static_cast<T>(reduce(in + p * size, size));
    return Status::Ok();
  });
}

}  // namespace onyx
