// Folds a scalar Div or Mul after a float32 product into the product's alpha: attention's
// MatMul(Q, K^T) / sqrt(d) becomes one com.microsoft FusedMatMul with alpha = 1 / sqrt(d), so
// neither the forward pass nor its gradient (whose products take the same alpha) spends a
// pass over the scores on the scale. Run on the training and eval models before the
// gradients are built, after fold_transposes_into_products' Transpose folding
// (training_graph.cc).
#pragma once
#include "ir/graph.h"

namespace onyx::training {

// Rewrites every MatMul or FusedMatMul (no transBatch; inputs of rank >= 2, float32 output)
// whose output is read only by a Div(product, c) or Mul(product, c) / Mul(c, product), with c
// a float32 initializer of one element that is not a graph input (a constant, never a
// parameter): the product becomes FusedMatMul with alpha times c (or divided by c), writing
// the Div's or Mul's output, which goes. Graph outputs are never folded away. True when
// anything changed. x / c becomes x * (1 / c): within one rounding of the Div.
bool fold_scales_into_products(ir::Model& model);

}  // namespace onyx::training
