// Small helpers shared by shape and data-movement kernels: reading integer-list inputs,
// normalising axes and indices, and a NaN-safe ordering for sorting kernels.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/dispatch.h"

namespace onyx {

// The elements of an integer tensor (shape, axes, pads, repeats, ...); INVALID_ARGUMENT
// naming `what` when the tensor is missing or not of an integer type.
inline Result<std::vector<int64_t>> read_int_list(const Tensor& t, const char* what) {
  if (!t.defined()) return invalid_argument("input '", what, "' is missing");
  if (!is_integer_type(t.dtype()))
    return invalid_argument("input '", what, "' must be an integer tensor, got ", t.describe());
  return t.to_int64_vector();
}

// One integer from a scalar or one-element tensor of an integer type.
inline Result<int64_t> read_int_scalar(const Tensor& t, const char* what) {
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> v, read_int_list(t, what));
  if (v.size() != 1) return invalid_argument("input '", what, "' must hold one element, got ", t.describe());
  return v[0];
}

// Normalises each axis against `rank` (negative counts from the end); rejects out-of-range
// and repeated axes.
inline Result<std::vector<int64_t>> normalize_axes(std::vector<int64_t> axes, int64_t rank) {
  std::vector<bool> seen(size_t(rank > 0 ? rank : 0), false);
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) return invalid_argument("axis ", a, " is out of range for rank ", rank);
    if (a < 0) a += rank;
    if (seen[size_t(a)]) return invalid_argument("axis ", a, " is repeated");
    seen[size_t(a)] = true;
  }
  return axes;
}

// Normalises an index into [0, dim): negative counts from the end. INVALID_ARGUMENT when
// the index lies outside [-dim, dim).
inline Status normalize_index(int64_t& index, int64_t dim) {
  if (index < -dim || index >= dim)
    return invalid_argument("index ", index, " is out of range for a dimension of size ", dim);
  if (index < 0) index += dim;
  return Status::Ok();
}

// A strict weak order on computed values in which NaN sorts after every number (and NaNs
// compare equal), so sorting floats with NaN is well defined.
template <typename C>
inline bool nan_last_less(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

}  // namespace onyx
