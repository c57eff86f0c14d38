#include "kernels/element_copy.h"

#include <cstring>
#include <type_traits>

#include "core/parallel.h"

namespace onyx {
namespace {

// Drops size-1 dims and merges adjacent dims that are contiguous in src.
void coalesce(Shape& shape, std::vector<int64_t>& strides) {
  Shape s;
  std::vector<int64_t> st;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!s.empty() && st.back() == strides[d] * shape[d]) {
      s.back() *= shape[d];
      st.back() = strides[d];
    } else {
      s.push_back(shape[d]);
      st.push_back(strides[d]);
    }
  }
  if (s.empty()) {
    s.push_back(1);
    st.push_back(0);
  }
  shape = std::move(s);
  strides = std::move(st);
}

template <typename U>
void strided_copy_typed(const U* src, const Shape& shape, const std::vector<int64_t>& strides, U* dst) {
  const int rank = int(shape.size());
  const int64_t inner = shape[size_t(rank - 1)];
  const int64_t inner_stride = strides[size_t(rank - 1)];
  const int64_t rows = shape_size(shape) / inner;
  const int64_t grain = inner >= 4096 ? 1 : 4096 / inner;
  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    // Unravel `begin` into the outer index and its source offset.
    std::vector<int64_t> idx(size_t(rank), 0);
    int64_t off = 0;
    for (int64_t r = begin, d = rank - 2; d >= 0; --d) {
      idx[size_t(d)] = r % shape[size_t(d)];
      r /= shape[size_t(d)];
      off += idx[size_t(d)] * strides[size_t(d)];
    }
    for (int64_t row = begin; row < end; ++row) {
      U* out = dst + row * inner;
      const U* in = src + off;
      if constexpr (std::is_trivially_copyable_v<U>) {
        if (inner_stride == 1) {
          std::memcpy(out, in, size_t(inner) * sizeof(U));
        } else {
          for (int64_t i = 0; i < inner; ++i) out[i] = in[i * inner_stride];
        }
      } else {
        for (int64_t i = 0; i < inner; ++i) out[i] = in[i * inner_stride];
      }
      for (int d = rank - 2; d >= 0; --d) {
        off += strides[size_t(d)];
        if (++idx[size_t(d)] < shape[size_t(d)]) break;
        off -= strides[size_t(d)] * shape[size_t(d)];
        idx[size_t(d)] = 0;
      }
    }
  });
}

}  // namespace

Status strided_copy(const Tensor& src, int64_t src_offset, const std::vector<int64_t>& src_strides,
                    const Shape& shape, Tensor& dst) {
  if (src_strides.size() != shape.size() || shape_size(shape) != dst.numel() || src.dtype() != dst.dtype())
    return error(StatusCode::kInternal, "strided_copy: inconsistent shapes or types");
  if (dst.numel() == 0) return Status::Ok();
  Shape s = shape;
  std::vector<int64_t> st = src_strides;
  coalesce(s, st);
  return dispatch_by_size(src.dtype(), [&]<typename U>() -> Status {
    strided_copy_typed<U>(src.data<U>() + src_offset, s, st, dst.data<U>());
    return Status::Ok();
  });
}

}  // namespace onyx
