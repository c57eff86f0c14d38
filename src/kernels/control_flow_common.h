// Helpers shared by the looping kernels (Loop, Scan, SequenceMap).
#pragma once
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/value.h"
#include "ir/graph.h"
#include "kernels/tensor_pieces.h"

namespace onyx {

// A body output declared as a tensor: its element type (kUndefined when not declared) and,
// when every dim is known, its shape.
struct DeclaredTensor {
  DataType dtype = DataType::kUndefined;
  bool has_shape = false;
  Shape shape;
};

inline DeclaredTensor declared_tensor(const ir::TypeInfo& type) {
  DeclaredTensor d;
  if (type.kind != ir::TypeInfo::Kind::kTensor) return d;
  d.dtype = type.elem_type;
  d.has_shape = type.shape.has_rank;
  for (const Dim& dim : type.shape.dims) {
    if (!dim.is_known()) d.has_shape = false;
    if (d.has_shape) d.shape.push_back(*dim.value);
  }
  if (!d.has_shape) d.shape.clear();
  return d;
}

// Stacks the per-iteration values of a scan output along a new dim at `axis` (negative counts
// from the back of the stacked rank). With no iterations the result is empty along that dim,
// typed and shaped as the body declares the output (float32 [0] when it does not say).
inline Result<Tensor> stack_scan_output(const std::vector<Tensor>& parts, int64_t axis,
                                        const ir::TypeInfo& declared) {
  if (parts.empty()) {
    const DeclaredTensor d = declared_tensor(declared);
    const DataType dtype = d.dtype == DataType::kUndefined ? DataType::kFloat : d.dtype;
    Shape shape = d.shape;
    const int64_t rank = int64_t(shape.size()) + 1;
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) axis = 0;
    shape.insert(shape.begin() + axis, 0);
    return Tensor::create(dtype, shape);
  }
  const int64_t rank = parts[0].rank() + 1;
  if (axis < -rank || axis >= rank)
    return invalid_argument("scan output axis ", axis, " is out of range for ", parts[0].describe(), " stacked");
  if (axis < 0) axis += rank;
  return join_axis(parts, axis, /*new_axis=*/true, parts[0].dtype());
}

// A one-element tensor read as a loop condition; INVALID_ARGUMENT otherwise.
inline Result<bool> condition_value(const Value& v, const char* what) {
  if (!v.is_tensor() || v.tensor().numel() != 1 || v.tensor().dtype() == DataType::kString ||
      v.tensor().dtype() == DataType::kComplex64 || v.tensor().dtype() == DataType::kComplex128)
    return invalid_argument(what, " must be a one-element bool tensor, got ", v.describe());
  return v.tensor().get_double(0) != 0;
}

}  // namespace onyx
