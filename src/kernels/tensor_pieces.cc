#include "kernels/tensor_pieces.h"

#include <cstring>
#include <string>

#include "core/narrow_types.h"

namespace onyx {
namespace {

// Product of dims [begin, end).
int64_t dims_product(const Shape& shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= shape[i];
  return n;
}

}  // namespace

void copy_elements(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset, int64_t count) {
  if (count <= 0) return;
  if (src.dtype() == DataType::kString) {
    const std::string* s = src.data<std::string>() + src_offset;
    std::string* d = dst.data<std::string>() + dst_offset;
    for (int64_t i = 0; i < count; ++i) d[i] = s[i];
    return;
  }
  if (is_packed_type(src.dtype())) {  // element by element: an offset may fall inside a byte
    for (int64_t i = 0; i < count; ++i)
      set_narrow_code(dst.raw_data(), dst.dtype(), dst_offset + i, narrow_code_at(src.raw_data(), src.dtype(), src_offset + i));
    return;
  }
  const size_t item = src.itemsize();
  std::memcpy(static_cast<char*>(dst.raw_data()) + size_t(dst_offset) * item,
              static_cast<const char*>(src.raw_data()) + size_t(src_offset) * item, size_t(count) * item);
}

Result<Tensor> narrow_axis(const Tensor& t, int64_t axis, int64_t start, int64_t length) {
  if (axis < 0 || axis >= t.rank())
    return invalid_argument("axis ", axis, " is out of range for ", t.describe());
  const int64_t dim = t.dim(axis);
  if (start < 0 || length < 0 || start > dim || length > dim - start)
    return invalid_argument("range [", start, ", ", start + length, ") is out of bounds for axis ", axis, " of ",
                            t.describe());
  Shape shape = t.shape();
  shape[size_t(axis)] = length;
  const int64_t outer = dims_product(t.shape(), 0, size_t(axis));
  const int64_t inner = dims_product(t.shape(), size_t(axis) + 1, t.shape().size());
  if ((outer == 1 || length == 0) && !is_packed_type(t.dtype())) {
    // A contiguous block: share the buffer (a packed block may start inside a byte: copied).
    const size_t offset = t.offset() + size_t(start * inner) * t.itemsize();
    return Tensor(t.dtype(), shape, t.buffer(), length == 0 ? t.offset() : offset);
  }
  ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::create(t.dtype(), shape));
  const int64_t block = length * inner;
  for (int64_t o = 0; o < outer; ++o) copy_elements(t, (o * dim + start) * inner, out, o * block, block);
  return out;
}

Result<Tensor> select_axis(const Tensor& t, int64_t axis, int64_t index) {
  ONYX_ASSIGN_OR_RETURN(Tensor piece, narrow_axis(t, axis, index, 1));
  Shape shape = t.shape();
  shape.erase(shape.begin() + axis);
  return piece.reshaped(shape);
}

Result<Tensor> join_axis(const std::vector<Tensor>& parts, int64_t axis, bool new_axis, DataType dtype) {
  if (parts.empty()) return invalid_argument("cannot join an empty list of tensors");
  const Shape& first = parts[0].shape();
  const int64_t rank = int64_t(first.size());
  if (axis < 0 || axis > rank || (!new_axis && axis == rank))
    return invalid_argument("axis ", axis, " is out of range for joining tensors of rank ", rank);
  int64_t total = 0;
  for (const Tensor& p : parts) {
    if (p.dtype() != dtype)
      return invalid_argument("cannot join ", p.describe(), " with tensors of type ", data_type_name(dtype));
    bool compatible = p.rank() == rank;
    for (int64_t d = 0; compatible && d < rank; ++d)
      compatible = p.dim(d) == first[size_t(d)] || (!new_axis && d == axis);
    if (!compatible)
      return invalid_argument("cannot join ", p.describe(), " with ", parts[0].describe(),
                              new_axis ? " (stacking needs equal shapes)" : "", " along axis ", axis);
    total += new_axis ? 1 : p.dim(axis);
  }
  Shape shape = first;
  if (new_axis)
    shape.insert(shape.begin() + axis, total);
  else
    shape[size_t(axis)] = total;
  ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::create(dtype, shape));
  // Viewed as [outer, total, inner], each part fills a [outer, len, inner] slab.
  const int64_t outer = dims_product(first, 0, size_t(axis));
  const int64_t inner = dims_product(first, size_t(axis) + (new_axis ? 0 : 1), first.size());
  int64_t at = 0;
  for (const Tensor& p : parts) {
    const int64_t len = new_axis ? 1 : p.dim(axis);
    const int64_t block = len * inner;
    for (int64_t o = 0; o < outer; ++o) copy_elements(p, o * block, out, (o * total + at) * inner, block);
    at += len;
  }
  return out;
}

}  // namespace onyx
