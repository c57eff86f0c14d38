// Cutting tensors into pieces along an axis and joining pieces back together. Shared by the
// control-flow kernels (Scan, Loop scan outputs) and the sequence kernels (SplitToSequence,
// ConcatFromSequence). Every function works on any element type, strings included.
#pragma once
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx {

// Copies `count` elements from src[src_offset..] to dst[dst_offset..] (same dtype; the caller
// checks the ranges). Packed types are copied element by element, so two calls must not write
// elements that share a byte at once.
void copy_elements(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset, int64_t count);

// Elements [start, start + length) of `t` along `axis` (0 <= axis < rank), the axis kept.
// Shares t's buffer when axis is 0 (or every dim before it is 1); copies otherwise.
Result<Tensor> narrow_axis(const Tensor& t, int64_t axis, int64_t start, int64_t length);

// Element `index` of `t` along `axis`, with that axis removed (rank - 1).
Result<Tensor> select_axis(const Tensor& t, int64_t axis, int64_t index);

// Joins `parts` along `axis`. With new_axis the parts must have equal shapes and are stacked
// along a new dim inserted at `axis` (0 <= axis <= rank); otherwise they must agree on every
// dim but `axis` (0 <= axis < rank). All parts must have dtype `dtype`; `parts` may not be empty.
Result<Tensor> join_axis(const std::vector<Tensor>& parts, int64_t axis, bool new_axis, DataType dtype);

}  // namespace onyx
