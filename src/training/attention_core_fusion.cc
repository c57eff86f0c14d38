#include "training/attention_core_fusion.h"

#include <memory>
#include <map>
#include <set>

#include "ops/infer_graph.h"
#include "optimizer/pass.h"
#include "optimizer/pass_manager.h"

namespace onyx::training {
namespace {

// The Split that makes q, k and v as its outputs 0-2 from one rank-3 value along its last dim
// in three equal parts, read by nothing else: its index in g.nodes, or -1.
int packed_split(const ir::Graph& g, const std::vector<std::string>& qkv) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (n.op_type != "Split" || !n.domain.empty() || n.outputs != qkv) continue;
    const ir::Attribute* axis = n.attribute("axis");
    const int64_t a = axis ? axis->i : 0;
    if (a != -1 && a != 2) return -1;
    std::vector<int64_t> sizes;
    if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
      auto it = g.initializers.find(n.inputs[1]);
      if (it == g.initializers.end()) return -1;
      sizes = it->second.to_int64_vector();
    } else if (const ir::Attribute* split = n.attribute("split")) {
      sizes = split->ints;
    }
    if (!sizes.empty() && (sizes.size() != 3 || sizes[0] != sizes[1] || sizes[1] != sizes[2])) return -1;
    return int(i);
  }
  return -1;
}

}  // namespace

bool fuse_attention_cores(ir::Model& model) {
  std::shared_ptr<const optimizer::Pass> attention, dead;
  for (const optimizer::PassDef& def : optimizer::PassRegistry::global().all()) {
    if (def.pass->name() == "attention_fusion") attention = def.pass;
    if (def.pass->name() == "dead_node_elimination") dead = def.pass;
  }
  if (!attention || !dead) return false;
  ir::Model work = model;
  ops::GraphTypes types = ops::infer_graph_types(work.graph, work.opsets);
  // Then the shape computations the fused patterns no longer need go, so that they do not
  // count as readers below.
  optimizer::PassManager manager({{optimizer::Phase::kFuse, {attention}}, {optimizer::Phase::kSimplify, {dead}}});
  auto report = manager.run(work, types, /*log_level=*/3);
  if (!report.ok() || !report->skipped.empty()) return false;

  std::set<std::string> names;  // every value name, for the probabilities' fresh names
  for (const ir::Node& n : work.graph.nodes) {
    names.insert(n.inputs.begin(), n.inputs.end());
    names.insert(n.outputs.begin(), n.outputs.end());
  }
  for (const ir::ValueInfo& v : work.graph.inputs) names.insert(v.name);
  for (const auto& [name, t] : work.graph.initializers) names.insert(name);
  size_t cores = 0;
  for (ir::Node& n : work.graph.nodes) {
    if (n.op_type != "MultiHeadAttention") continue;
    const ir::Attribute* heads = n.attribute("num_heads");
    const ir::Attribute* scale = n.attribute("scale");
    const ir::Attribute* causal = n.attribute("unidirectional");
    if (n.domain != "com.microsoft" || n.inputs.size() != 3 || n.outputs.size() != 1 || !heads || !scale ||
        (causal && causal->i != 0))
      return false;  // a mask or a causal core: leave the model as it was
    std::map<std::string, ir::Attribute> attributes{{"num_heads", *heads}, {"scale", *scale}};
    n.attributes = std::move(attributes);
    n.op_type = "AttentionCore";
    n.domain = "ai.onyx.training";
    std::string probs = n.outputs[0] + "_probs";
    while (names.count(probs)) probs += "_";
    names.insert(probs);
    n.outputs.push_back(probs);
    ++cores;
  }
  if (cores == 0) return false;

  // A core whose query, key and value are one projection's Split reads the projection itself
  // (AttentionCore's packed form), and the Split goes: no copies out, and in the backward one
  // packed gradient instead of three and their Concat.
  std::map<std::string, int> readers;
  for (const ir::Node& n : work.graph.nodes)
    for (const std::string& in : n.inputs) ++readers[in];
  for (const ir::ValueInfo& v : work.graph.outputs) ++readers[v.name];
  std::vector<bool> drop(work.graph.nodes.size(), false);
  for (ir::Node& n : work.graph.nodes) {
    if (n.op_type != "AttentionCore" || n.inputs.size() != 3) continue;
    if (readers[n.inputs[0]] != 1 || readers[n.inputs[1]] != 1 || readers[n.inputs[2]] != 1) continue;
    // (The fusion proved q, k and v of rank 3, so the Split's input is too.)
    const int split = packed_split(work.graph, n.inputs);
    if (split < 0) continue;
    n.inputs = {work.graph.nodes[size_t(split)].inputs[0]};
    drop[size_t(split)] = true;
  }
  std::vector<ir::Node> kept;
  for (size_t i = 0; i < work.graph.nodes.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(work.graph.nodes[i]));
  work.graph.nodes = std::move(kept);
  work.opsets.emplace("ai.onyx.training", 1);
  model = std::move(work);
  return true;
}

}  // namespace onyx::training
