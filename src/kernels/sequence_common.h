// Input checks shared by the sequence kernels (SequenceAt, SequenceInsert, SequenceErase, ...).
#pragma once
#include <cstdint>

#include "core/status.h"
#include "core/value.h"
#include "kernels/kernel.h"

namespace onyx {

// Input i as a sequence, or INVALID_ARGUMENT when it is missing or not a sequence.
inline Result<const Value*> sequence_input(const KernelContext& ctx, int i) {
  const Value& v = ctx.input_value(i);
  if (!v.is_sequence()) return invalid_argument("input ", i, " must be a sequence, got ", v.describe());
  return &v;
}

// Input i as a tensor, or INVALID_ARGUMENT when it is missing or not a tensor.
inline Result<const Tensor*> tensor_input(const KernelContext& ctx, int i) {
  const Value& v = ctx.input_value(i);
  if (!v.is_tensor()) return invalid_argument("input ", i, " must be a tensor, got ", v.describe());
  return &v.tensor();
}

// A 'position' input (int32 or int64, one element) normalised against a sequence of length n:
// accepted in [-n, n - 1], or [-n, n] when `allow_end` (an insertion point).
inline Result<int64_t> sequence_position(const Tensor& position, int64_t n, bool allow_end) {
  if (position.dtype() != DataType::kInt32 && position.dtype() != DataType::kInt64)
    return invalid_argument("position must be int32 or int64, got ", position.describe());
  if (position.numel() != 1) return invalid_argument("position must hold one element, got ", position.describe());
  const int64_t p = position.get_int64(0);
  const int64_t hi = allow_end ? n : n - 1;
  if (p < -n || p > hi)
    return invalid_argument("position ", p, " is out of range [", -n, ", ", hi, "] for a sequence of length ", n);
  return p < 0 ? p + n : p;
}

// True when a tensor of type `t` may join a sequence whose element type is `elem`.
inline bool sequence_accepts(DataType elem, DataType t) { return elem == DataType::kUndefined || elem == t; }

}  // namespace onyx
