#include "core/shape.h"

#include <limits>

namespace onyx {

int64_t shape_size(const Shape& shape) {
  // Overflow is judged on the product of the non-zero dims, even when a 0 dim makes the
  // tensor empty: a shape such as [0, 2^62, 4] is refused, so that every product of some of a
  // valid shape's dims (strides, outer/inner counts in kernels) fits in int64.
  int64_t nonzero = 1;
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d == 0) {
      empty = true;
      continue;
    }
    if (nonzero > std::numeric_limits<int64_t>::max() / d) return -1;
    nonzero *= d;
  }
  return empty ? 0 : nonzero;
}

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::vector<int64_t> shape_strides(const Shape& shape) {
  // A shape with a 0 dim may have other dims whose product exceeds int64 (the tensor is empty,
  // so no stride ever addresses an element): multiply as uint64, which wraps without UB.
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i)
    strides[size_t(i)] = int64_t(uint64_t(strides[size_t(i) + 1]) * uint64_t(shape[size_t(i) + 1]));
  return strides;
}

std::string Dim::to_string() const {
  if (value) return std::to_string(*value);
  return symbol.empty() ? "?" : symbol;
}

std::string SymbolicShape::to_string() const {
  if (!has_rank) return "?";
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i].to_string();
  }
  return s + "]";
}

}  // namespace onyx
