// Numpy-style (multidirectional) broadcasting helpers shared by elementwise kernels.
#pragma once
#include <cstdint>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "core/tensor.h"

namespace onyx {

// The broadcast of several shapes, or INVALID_ARGUMENT naming them.
Result<Shape> broadcast_shapes(const std::vector<Shape>& shapes);

// Strides (in elements) of `shape` read as the broadcast `out` shape: 0 on broadcast dims.
std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out);

// Calls fn(out_index, offsets) for every element of `out`, where offsets[k] is the element
// offset into input k (whose shape broadcasts to `out`). Iterates in row-major order.
template <typename F>
void for_each_broadcast(const Shape& out, const std::vector<Shape>& inputs, F&& fn) {
  const size_t k = inputs.size();
  const int64_t n = shape_size(out);
  if (n <= 0) return;
  std::vector<std::vector<int64_t>> strides(k);
  for (size_t j = 0; j < k; ++j) strides[j] = broadcast_strides(inputs[j], out);
  const int rank = int(out.size());
  std::vector<int64_t> idx(size_t(rank), 0), off(k, 0);
  for (int64_t i = 0; i < n; ++i) {
    fn(i, off.data());
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[size_t(d)] < out[size_t(d)]) {
        for (size_t j = 0; j < k; ++j) off[j] += strides[j][size_t(d)];
        break;
      }
      for (size_t j = 0; j < k; ++j) off[j] -= strides[j][size_t(d)] * (out[size_t(d)] - 1);
      idx[size_t(d)] = 0;
    }
  }
}

// out[i] = fn(a[..], b[..]) with broadcasting; `out` must already have the broadcast shape.
template <typename A, typename B, typename O, typename F>
void broadcast_binary(const Tensor& a, const Tensor& b, Tensor& out, F&& fn) {
  const A* pa = a.data<A>();
  const B* pb = b.data<B>();
  O* po = out.data<O>();
  const int64_t n = out.numel();
  if (a.shape() == out.shape() && b.shape() == out.shape()) {
    for (int64_t i = 0; i < n; ++i) po[i] = fn(pa[i], pb[i]);
  } else if (a.shape() == out.shape() && b.numel() == 1) {
    const B bv = pb[0];
    for (int64_t i = 0; i < n; ++i) po[i] = fn(pa[i], bv);
  } else if (b.shape() == out.shape() && a.numel() == 1) {
    const A av = pa[0];
    for (int64_t i = 0; i < n; ++i) po[i] = fn(av, pb[i]);
  } else {
    for_each_broadcast(out.shape(), {a.shape(), b.shape()},
                       [&](int64_t i, const int64_t* off) { po[i] = fn(pa[off[0]], pb[off[1]]); });
  }
}

// Normalises a possibly negative axis against `rank`; INVALID_ARGUMENT when out of range.
Result<int64_t> normalize_axis(int64_t axis, int64_t rank);

}  // namespace onyx
