// Shared pieces of the ai.onnx.ml static rules.
#pragma once
#include "ops/op_rule.h"

namespace onyx::ops {

// The row count N of a feature input [C] (1) or [N, C]; unknown otherwise.
inline Dim ml_rows(const SymbolicShape& x) {
  Dim n;
  if (x.has_rank && x.dims.size() == 1) n.value = 1;
  else if (x.has_rank && x.dims.size() == 2) n = x.dims[0];
  return n;
}

inline Dim known_dim(int64_t v) {
  Dim d;
  d.value = v;
  return d;
}

// int64 when the node has the ints attribute, string when it has the strings one.
inline DataType ml_label_type(const InferenceContext& ctx, const char* ints, const char* strings) {
  if (ctx.has_attr(ints)) return DataType::kInt64;
  if (ctx.has_attr(strings)) return DataType::kString;
  return DataType::kUndefined;
}

// Number of values in a list attribute (floats, ints or strings); 0 when absent.
inline int64_t ml_attr_count(const InferenceContext& ctx, const char* name) {
  const ir::Attribute* a = ctx.node().attribute(name);
  if (!a) return 0;
  return int64_t(a->floats.size() + a->ints.size() + a->strings.size());
}

}  // namespace onyx::ops
