#include "training/transpose_folding.h"

#include <map>
#include <set>

#include "ops/infer_graph.h"

namespace onyx::training {
namespace {

// Whether `n` is a Transpose swapping exactly the last two dims of a rank >= 2 input.
bool swaps_last_two(const ir::Node& n, const ops::GraphTypes& types) {
  if (n.op_type != "Transpose" || !n.domain.empty() || n.inputs.size() != 1 || n.outputs.size() != 1) return false;
  auto t = types.all.find(n.inputs[0]);
  if (t == types.all.end() || !t->second.shape.has_rank) return false;
  const size_t r = t->second.shape.dims.size();
  const ir::Attribute* perm = n.attribute("perm");
  if (r < 2 || !perm || perm->ints.size() != r) return false;
  for (size_t i = 0; i + 2 < r; ++i)
    if (perm->ints[i] != int64_t(i)) return false;
  return perm->ints[r - 2] == int64_t(r - 1) && perm->ints[r - 1] == int64_t(r - 2);
}

// Every value a node reads, through its subgraphs too (every input of every node inside).
void names_read(const ir::Node& node, std::set<std::string>& into) {
  into.insert(node.inputs.begin(), node.inputs.end());
  for (const auto& [_, attr] : node.attributes) {
    std::vector<std::shared_ptr<ir::Graph>> graphs = attr.graphs;
    if (attr.g) graphs.push_back(attr.g);
    for (const auto& sub : graphs)
      for (const ir::Node& inner : sub->nodes) names_read(inner, into);
  }
}

ir::Attribute int_attr(const std::string& name, int64_t v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::kInt;
  a.i = v;
  return a;
}

}  // namespace

bool fold_transposes_into_products(ir::Model& model) {
  ir::Graph& g = model.graph;
  const ops::GraphTypes types = ops::infer_graph_types(g, model.opsets);
  std::map<std::string, const ir::Node*> swap_of;  // Transpose output -> its node
  for (const ir::Node& n : g.nodes)
    if (swaps_last_two(n, types)) swap_of[n.outputs[0]] = &n;
  bool changed = false;
  for (ir::Node& n : g.nodes) {
    if (n.op_type != "MatMul" || !n.domain.empty() || n.inputs.size() != 2) continue;
    auto rank_at_least_2 = [&](const std::string& v) {
      auto t = types.all.find(v);
      return t != types.all.end() && t->second.shape.has_rank && t->second.shape.dims.size() >= 2;
    };
    if (!rank_at_least_2(n.inputs[0]) || !rank_at_least_2(n.inputs[1])) continue;  // FusedMatMul ignores 1-D transposes
    const bool trans[2] = {swap_of.count(n.inputs[0]) > 0, swap_of.count(n.inputs[1]) > 0};
    if (!trans[0] && !trans[1]) continue;
    for (size_t i = 0; i < 2; ++i)
      if (trans[i]) n.inputs[i] = swap_of.at(n.inputs[i])->inputs[0];
    n.op_type = "FusedMatMul";
    n.domain = "com.microsoft";
    n.attributes["transA"] = int_attr("transA", trans[0]);
    n.attributes["transB"] = int_attr("transB", trans[1]);
    changed = true;
  }
  if (!changed) return false;
  model.opsets.emplace("com.microsoft", 1);
  // Transposes nothing reads any more.
  std::set<std::string> read;
  for (const ir::Node& n : g.nodes) names_read(n, read);
  for (const ir::ValueInfo& o : g.outputs) read.insert(o.name);
  std::vector<ir::Node> kept;
  for (ir::Node& n : g.nodes)
    if (!(swap_of.count(n.outputs.empty() ? "" : n.outputs[0]) && !read.count(n.outputs[0]))) kept.push_back(std::move(n));
  g.nodes = std::move(kept);
  return true;
}

}  // namespace onyx::training
