// The ONNX Gradient op (ai.onnx.preview.training, opset 1): Gradient(xs, y) outputs dY/dX for
// each X named in `xs`, Y named by `y`, over the graph it sits in. onyx expands each such node
// into the backward graph (gradient_builder.h) before static inference, so the result is an
// ordinary graph that is optimised and planned like any other.
#pragma once
#include "core/status.h"
#include "ir/graph.h"

namespace onyx::training {

bool has_gradient_ops(const ir::Graph& graph);

// Replaces every Gradient node of the main graph by the nodes computing its outputs. Its
// inputs must be the values named by `xs` (and `zs`): the gradient at the graph's own values,
// which is what a graph that computes y from them gives. NOT_IMPLEMENTED for a Gradient inside
// a subgraph or fed other values, or an op on the path with no gradient rule.
Status expand_gradient_ops(ir::Model& model);

}  // namespace onyx::training
