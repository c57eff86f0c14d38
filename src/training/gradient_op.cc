#include "training/gradient_op.h"

#include <algorithm>

#include "ops/infer_graph.h"
#include "optimizer/patch.h"
#include "training/gradient_builder.h"

namespace onyx::training {

namespace {

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

bool is_gradient(const ir::Node& n) { return n.domain == kTrainingDomain && n.op_type == "Gradient"; }

bool has_nested_gradient(const ir::Graph& graph) {
  for (const auto& n : graph.nodes)
    for (const auto& [name, a] : n.attributes) {
      auto check = [](const std::shared_ptr<ir::Graph>& g) {
        if (!g) return false;
        for (const auto& inner : g->nodes)
          if (is_gradient(inner)) return true;
        return has_nested_gradient(*g);
      };
      if (check(a.g)) return true;
      for (const auto& g : a.graphs)
        if (check(g)) return true;
    }
  return false;
}

}  // namespace

bool has_gradient_ops(const ir::Graph& graph) {
  for (const auto& n : graph.nodes)
    if (is_gradient(n)) return true;
  return has_nested_gradient(graph);
}

Status expand_gradient_ops(ir::Model& model) {
  ir::Graph& graph = model.graph;
  model.opsets.emplace("ai.onyx.training", 1);  // gradient rules may emit onyx's training ops
  model.opsets.emplace("com.microsoft", 1);     // and contrib ops (FusedMatMul)
  if (has_nested_gradient(graph))
    return not_implemented("Gradient (", kTrainingDomain, ") inside a subgraph");
  for (;;) {
    auto it = std::find_if(graph.nodes.begin(), graph.nodes.end(), is_gradient);
    if (it == graph.nodes.end()) break;
    const ir::Node node = *it;
    graph.nodes.erase(it);
    GradientRequest request;
    if (const ir::Attribute* xs = node.attribute("xs")) request.xs = xs->strings;
    if (const ir::Attribute* y = node.attribute("y")) request.y = y->s;
    std::vector<std::string> fed = request.xs;
    if (const ir::Attribute* zs = node.attribute("zs")) fed.insert(fed.end(), zs->strings.begin(), zs->strings.end());
    if (request.xs.empty() || request.y.empty())
      return invalid_argument("Gradient node ", node.label(), " needs the attributes xs and y");
    if (node.outputs.size() != request.xs.size())
      return invalid_argument("Gradient node ", node.label(), " has ", node.outputs.size(), " outputs for ",
                              request.xs.size(), " xs");
    if (node.inputs != fed)
      return not_implemented("Gradient node ", node.label(),
                             ": its inputs must be the values its xs and zs name (the gradient at the graph's own "
                             "values); onyx does not re-evaluate the graph at other values");
    const ops::GraphTypes types = ops::infer_graph_types(graph, model.opsets);
    auto grads = build_gradients(graph, model.opsets, types, request);
    if (!grads.ok()) return grads.take_status().with_context("while expanding Gradient node " + node.label());
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      if (node.outputs[k].empty()) continue;
      ir::Node id;
      id.op_type = "Identity";
      id.name = node.name + "/" + node.outputs[k];
      id.inputs = {(*grads)[k]};
      id.outputs = {node.outputs[k]};
      graph.nodes.push_back(std::move(id));
    }
  }
  return optimizer::sort_topologically(graph);
}

}  // namespace onyx::training
