// Folds a Transpose that only swaps the last two dims into the MatMul that reads it, as
// com.microsoft FusedMatMul's transA / transB (read in place by oneDNN): exporters write
// Linear layers as MatMul(x, Transpose(W)), and in a training model W is a graph input, so
// the Transpose would copy every weight each step (and its gradient would be transposed back).
// A Transpose left without readers goes. A Transpose that brings the last dim forward and
// feeds only products (attention's K^T, perm (0, 2, 3, 1)) keeps the last dim in place
// instead ((0, 2, 1, 3), whole rows copied) and its readers take the swap as transA / transB. Then a float32 product whose only reader adds a 1-D
// bias [N] becomes onyx's FusedMatMulBias (ai.onyx.training: the bias in the product's
// epilogue, one pass instead of two). Run on the training and eval models before the
// gradients are built (training_graph.cc).
#pragma once
#include "ir/graph.h"

namespace onyx::training {

// True when anything changed. Static types come from ops::infer_graph_types.
// `fold_biases`: also the FusedMatMulBias rewrite (onyx's own op: not for models that leave
// onyx, such as the eval model that export_model_for_inferencing writes out).
bool fold_transposes_into_products(ir::Model& model, bool fold_biases = true);

}  // namespace onyx::training
