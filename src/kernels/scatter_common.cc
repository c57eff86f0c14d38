#include "kernels/scatter_common.h"

#include <algorithm>
#include <type_traits>

#include "kernels/dispatch.h"
#include "kernels/element_copy.h"
#include "kernels/shape_util.h"
#include "kernels/broadcast.h"

namespace onyx {

Result<ScatterReduction> parse_scatter_reduction(const std::string& name, int64_t opset) {
  if (name == "none") return ScatterReduction::kNone;
  if (opset >= 16 && name == "add") return ScatterReduction::kAdd;
  if (opset >= 16 && name == "mul") return ScatterReduction::kMul;
  if (opset >= 18 && name == "max") return ScatterReduction::kMax;
  if (opset >= 18 && name == "min") return ScatterReduction::kMin;
  return invalid_model("unsupported scatter reduction '", name, "' at opset ", opset);
}

namespace {

// Integer add/mul wrap around (computed in uint64_t) instead of overflowing.
template <typename C>
C reduce(C a, C b, ScatterReduction r) {
  if constexpr (std::is_integral_v<C>) {
    if (r == ScatterReduction::kAdd) return C(uint64_t(a) + uint64_t(b));
    if (r == ScatterReduction::kMul) return C(uint64_t(a) * uint64_t(b));
  } else {
    if (r == ScatterReduction::kAdd) return a + b;
    if (r == ScatterReduction::kMul) return a * b;
  }
  if (r == ScatterReduction::kMax) return std::max(a, b);
  if (r == ScatterReduction::kMin) return std::min(a, b);
  return b;
}

}  // namespace

Status scatter_blocks(const Tensor& updates, const std::vector<int64_t>& offsets, int64_t block,
                      ScatterReduction reduction, Tensor& out) {
  const int64_t n = int64_t(offsets.size());
  if (reduction == ScatterReduction::kNone) {
    for (int64_t i = 0; i < n; ++i) copy_elements(updates, i * block, out, offsets[size_t(i)], block);
    return Status::Ok();
  }
  return dispatch<ONYX_NUMERIC_TYPES>(out.dtype(), [&]<typename T>() -> Status {
    using C = compute_t<T>;
    const T* u = updates.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      T* dst = o + offsets[size_t(i)];
      const T* src = u + i * block;
      for (int64_t j = 0; j < block; ++j) dst[j] = static_cast<T>(reduce<C>(C(dst[j]), C(src[j]), reduction));
    }
    return Status::Ok();
  });
}

Status scatter_elements(const Tensor& data, const Tensor& indices_t, const Tensor& updates, int64_t axis_attr,
                        ScatterReduction reduction, Tensor& out) {
  const int64_t rank = data.rank();
  ONYX_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_attr, rank));
  if (indices_t.shape() != updates.shape() || indices_t.rank() != rank)
    return invalid_argument("indices ", indices_t.describe(), " and updates ", updates.describe(),
                            " must share a shape of the rank of data ", data.describe());
  if (updates.dtype() != data.dtype())
    return invalid_argument("updates ", updates.describe(), " and data ", data.describe(), " differ in type");
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && indices_t.dim(d) > data.dim(d))
      return invalid_argument("indices ", indices_t.describe(), " exceed data ", data.describe(), " on dim ", d);
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> offsets, read_int_list(indices_t, "indices"));

  // offsets[i] becomes the data offset that update i lands on.
  const std::vector<int64_t> strides = shape_strides(data.shape());
  const int64_t dim = data.dim(axis);
  std::vector<int64_t> idx(size_t(rank), 0);
  int64_t base = 0;  // data offset of idx with the axis coordinate at 0
  for (int64_t& off : offsets) {
    ONYX_RETURN_IF_ERROR(normalize_index(off, dim));
    off = base + off * strides[size_t(axis)];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (d != axis) base += strides[size_t(d)];
      if (++idx[size_t(d)] < indices_t.dim(d)) break;
      if (d != axis) base -= strides[size_t(d)] * indices_t.dim(d);
      idx[size_t(d)] = 0;
    }
  }
  copy_elements(data, 0, out, 0, data.numel());
  return scatter_blocks(updates, offsets, 1, reduction, out);
}

}  // namespace onyx
