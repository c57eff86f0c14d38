// What the weight quantisers (quantize_dynamic, quantize_int4) may rewrite: a MatMul, or a Gemm of
// the plain form (transA 0, alpha 1, C absent or a constant float32 [N] bias with beta 1), whose B
// is a 2-D float32 initializer that is not a graph input.
#pragma once
#include <set>
#include <string>

#include "ir/graph.h"

namespace onyx::optimizer {

struct WeightProduct {
  std::string reason;           // empty when the node can be rewritten; else why not
  std::string weights;          // B's initializer
  bool trans_b = false;         // B stored [N, K]
  std::string bias;             // Gemm's C, or empty
  int64_t k = 0, n = 0;
};

// `node` is a MatMul or Gemm of the default domain; graph_inputs are the main graph's input names.
// A node whose op type is in exclude_op_types or whose name is in exclude_nodes is "excluded".
WeightProduct weight_product(const ir::Graph& g, const ir::Node& node, const std::set<std::string>& graph_inputs,
                             const std::set<std::string>& exclude_op_types, const std::set<std::string>& exclude_nodes);

// `base`, or `base_1`, `base_2`, ... : the first name no initializer of g has.
std::string fresh_initializer_name(const ir::Graph& g, const std::string& base);

}  // namespace onyx::optimizer
