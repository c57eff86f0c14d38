#include "kernels/broadcast.h"

namespace onyx {

Result<Shape> broadcast_shapes(const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape& s : shapes) {
    const size_t pad = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[pad + i];
      const int64_t d = s[i];
      if (d == o) continue;
      if (o == 1) {
        o = d;
      } else if (d != 1) {
        std::string all;
        for (const Shape& t : shapes) all += (all.empty() ? "" : " and ") + shape_to_string(t);
        return invalid_argument("shapes ", all, " cannot be broadcast together");
      }
    }
  }
  return out;
}

std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  const size_t pad = out.size() - shape.size();
  int64_t stride = 1;
  for (int i = int(shape.size()) - 1; i >= 0; --i) {
    strides[pad + size_t(i)] = shape[size_t(i)] == 1 ? 0 : stride;
    stride *= shape[size_t(i)];
  }
  return strides;
}

Result<int64_t> normalize_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank || (rank == 0 && axis != 0))
    return invalid_argument("axis ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

}  // namespace onyx
