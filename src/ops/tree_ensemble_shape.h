// Shared by the rules of the ai.onnx.ml tree ensembles: the batch dim N of X ([N, F], or [F] as
// one row), unknown when X's rank is.
#pragma once
#include "ops/op_rule.h"

namespace onyx::ops {

inline Dim tree_ensemble_batch_dim(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0);
  if (x.has_rank && x.dims.size() == 2) return x.dims[0];
  if (x.has_rank && x.dims.size() == 1) return Dim{1, "", ""};
  return Dim{};
}

inline SymbolicShape tree_ensemble_shape(std::vector<Dim> dims) {
  SymbolicShape s;
  s.has_rank = true;
  s.dims = std::move(dims);
  return s;
}

}  // namespace onyx::ops
