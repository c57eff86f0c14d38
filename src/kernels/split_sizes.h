// The piece sizes of Split, shared by its CPU and CUDA kernels.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx {

// Sizes of the `n` pieces dim `axis` of `x` is cut into: `given` when not null (from the
// 'split' input or attribute); else, with `ceil_chunks` (opset 18's num_outputs), pieces of
// ceil(dim / n) with a smaller last one; else equal pieces, which must divide the dim.
// INVALID_ARGUMENT for a count or sum that does not match, or a negative size.
inline Result<std::vector<int64_t>> split_sizes(const Tensor& x, int64_t axis, int64_t n,
                                                const std::vector<int64_t>* given, bool ceil_chunks) {
  const int64_t dim = x.dim(axis);
  if (n < 1) return invalid_argument("Split needs at least one output");
  std::vector<int64_t> split;
  if (given) {
    split = *given;
  } else if (ceil_chunks) {
    const int64_t chunk = (dim + n - 1) / n;
    for (int64_t i = 0, left = dim; i < n; ++i, left -= std::min(left, chunk)) split.push_back(std::min(left, chunk));
  } else {
    if (dim % n != 0) return invalid_argument("Split: dim ", dim, " of ", x.describe(), " does not split evenly into ", n);
    split.assign(size_t(n), dim / n);
  }
  if (int64_t(split.size()) != n) return invalid_argument("Split: 'split' has ", split.size(), " entries for ", n, " outputs");
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0 || s > dim) return invalid_argument("Split: invalid piece size ", s);
    total += s;
  }
  if (total != dim)
    return invalid_argument("Split: pieces ", shape_to_string(split), " do not sum to dim ", dim, " of ", x.describe());
  return split;
}

}  // namespace onyx
