#include "training/product_scale_folding.h"

#include <cmath>
#include <map>
#include <set>

#include "ops/infer_graph.h"
#include "training/graph_reads.h"

namespace onyx::training {
namespace {

// The value of `name` when it is a float32 initializer of one element and not a graph input.
bool constant_scalar(const ir::Graph& g, const std::string& name, float& value) {
  auto it = g.initializers.find(name);
  if (it == g.initializers.end() || it->second.dtype() != DataType::kFloat || it->second.numel() != 1) return false;
  for (const ir::ValueInfo& in : g.inputs)
    if (in.name == name) return false;
  value = *it->second.data<float>();
  return true;
}

bool flag(const ir::Node& n, const char* name) {
  const ir::Attribute* a = n.attribute(name);
  return a && a->i != 0;
}

}  // namespace

bool fold_scales_into_products(ir::Model& model) {
  ir::Graph& g = model.graph;
  const ops::GraphTypes types = ops::infer_graph_types(g, model.opsets);
  const std::map<std::string, std::vector<size_t>> readers = readers_by_node(g);
  const std::set<std::string> outputs = graph_output_names(g);
  auto rank_at_least = [&](const std::string& v, size_t r, bool float32) {
    auto t = types.all.find(v);
    return t != types.all.end() && t->second.shape.has_rank && t->second.shape.dims.size() >= r &&
           (!float32 || t->second.elem_type == DataType::kFloat);
  };
  std::set<size_t> removed;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    ir::Node& n = g.nodes[k];
    const bool matmul = n.op_type == "MatMul" && n.domain.empty();
    const bool fused = n.op_type == "FusedMatMul" && n.domain == "com.microsoft";
    if ((!matmul && !fused) || n.inputs.size() != 2 || n.outputs.size() != 1) continue;
    if (fused && (flag(n, "transBatchA") || flag(n, "transBatchB"))) continue;
    if (!rank_at_least(n.inputs[0], 2, false) || !rank_at_least(n.inputs[1], 2, false) ||
        !rank_at_least(n.outputs[0], 2, true) || outputs.count(n.outputs[0]))
      continue;
    auto r = readers.find(n.outputs[0]);
    if (r == readers.end() || r->second.size() != 1) continue;
    ir::Node& scale = g.nodes[r->second[0]];
    if (!scale.domain.empty() || scale.inputs.size() != 2 || scale.outputs.size() != 1) continue;
    const bool div = scale.op_type == "Div" && scale.inputs[0] == n.outputs[0];
    const bool mul = scale.op_type == "Mul";
    if (!div && !mul) continue;
    const std::string& other = scale.inputs[0] == n.outputs[0] ? scale.inputs[1] : scale.inputs[0];
    float c = 0;
    if (other == n.outputs[0] || !constant_scalar(g, other, c) || !rank_at_least(scale.outputs[0], 2, true)) continue;
    // The scalar must not widen the product's shape (a [1, 1, 1] constant on a 2-D product).
    if (types.all.at(scale.outputs[0]).shape.dims.size() != types.all.at(n.outputs[0]).shape.dims.size()) continue;
    // x / 0 and x * inf keep the infinities and NaNs the Div or Mul makes.
    if (!std::isfinite(c) || (div && c == 0.f)) continue;
    const ir::Attribute* alpha = n.attribute("alpha");
    const float folded = (alpha ? alpha->f : 1.f) * (div ? 1.f / c : c);
    if (matmul) {
      n.op_type = "FusedMatMul";
      n.domain = "com.microsoft";
    }
    ir::Attribute a;
    a.name = "alpha";
    a.type = ir::Attribute::Type::kFloat;
    a.f = folded;
    n.attributes["alpha"] = a;
    n.outputs[0] = scale.outputs[0];
    removed.insert(r->second[0]);
  }
  if (removed.empty()) return false;
  model.opsets.emplace("com.microsoft", 1);
  erase_nodes(g, removed);
  return true;
}

}  // namespace onyx::training
