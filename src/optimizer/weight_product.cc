#include "optimizer/weight_product.h"

namespace onyx::optimizer {

WeightProduct weight_product(const ir::Graph& g, const ir::Node& node, const std::set<std::string>& graph_inputs,
                             const std::set<std::string>& exclude_op_types, const std::set<std::string>& exclude_nodes) {
  WeightProduct w;
  if (exclude_op_types.count(node.op_type) || exclude_nodes.count(node.name)) {
    w.reason = "excluded";
    return w;
  }
  if (node.op_type == "Gemm") {
    auto attr = [&](const char* name, float fallback) {
      const ir::Attribute* a = node.attribute(name);
      return a ? (a->type == ir::Attribute::Type::kFloat ? a->f : float(a->i)) : fallback;
    };
    if (attr("transA", 0) != 0 || attr("alpha", 1) != 1) {
      w.reason = "Gemm with transA or alpha != 1";
      return w;
    }
    w.trans_b = attr("transB", 0) != 0;
    if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
      auto c = g.initializers.find(node.inputs[2]);
      if (c == g.initializers.end() || graph_inputs.count(node.inputs[2]) || c->second.rank() != 1 ||
          c->second.dtype() != DataType::kFloat || attr("beta", 1) != 1) {
        w.reason = "Gemm's C is not a constant 1-D float bias with beta 1";
        return w;
      }
      w.bias = node.inputs[2];
    }
  }
  auto b = g.initializers.find(node.inputs.size() > 1 ? node.inputs[1] : std::string());
  if (b == g.initializers.end() || graph_inputs.count(b->first)) {
    w.reason = "B is not an initializer";
    return w;
  }
  if (b->second.dtype() != DataType::kFloat || b->second.rank() != 2 || b->second.numel() == 0 || !b->second.bytes_in_place()) {
    w.reason = "B is not a 2-D float32 initializer";
    return w;
  }
  w.weights = b->first;
  w.k = w.trans_b ? b->second.dim(1) : b->second.dim(0);
  w.n = w.trans_b ? b->second.dim(0) : b->second.dim(1);
  if (!w.bias.empty() && g.initializers.at(w.bias).dim(0) != w.n) w.reason = "Gemm's bias is not [N]";
  return w;
}

std::string fresh_initializer_name(const ir::Graph& g, const std::string& base) {
  std::string name = base;
  for (int i = 1; g.initializers.count(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

}  // namespace onyx::optimizer
