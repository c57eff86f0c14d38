#include "training/transpose_folding.h"

#include <map>
#include <set>

#include "ops/infer_graph.h"
#include "training/graph_reads.h"

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

ir::Attribute int_attr(const std::string& name, int64_t v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::kInt;
  a.i = v;
  return a;
}

// A float32 product (MatMul, or FusedMatMul without alpha or transBatch) whose only reader is
// an Add of a 1-D bias [N] (N its last dim) becomes FusedMatMulBias writing the Add's output.
bool fold_bias_adds(ir::Model& model) {
  ir::Graph& g = model.graph;
  const ops::GraphTypes types = ops::infer_graph_types(g, model.opsets);
  const std::map<std::string, std::vector<size_t>> readers = readers_by_node(g);
  const std::set<std::string> outputs = graph_output_names(g);
  auto type_of = [&](const std::string& v) -> const ir::TypeInfo* {
    auto t = types.all.find(v);
    return t == types.all.end() ? nullptr : &t->second;
  };
  std::set<size_t> removed;
  for (ir::Node& n : g.nodes) {
    const bool matmul = n.op_type == "MatMul" && n.domain.empty();
    const bool fused = n.op_type == "FusedMatMul" && n.domain == "com.microsoft";
    if ((!matmul && !fused) || n.inputs.size() != 2 || n.outputs.size() != 1) continue;
    if (fused) {
      const ir::Attribute* alpha = n.attribute("alpha");
      const ir::Attribute* tba = n.attribute("transBatchA");
      const ir::Attribute* tbb = n.attribute("transBatchB");
      if ((alpha && alpha->f != 1.f) || (tba && tba->i) || (tbb && tbb->i)) continue;
    }
    const ir::TypeInfo* y = type_of(n.outputs[0]);
    const ir::TypeInfo* a = type_of(n.inputs[0]);
    const ir::TypeInfo* b = type_of(n.inputs[1]);
    if (!y || !a || !b || y->elem_type != DataType::kFloat || !y->shape.has_rank || y->shape.dims.empty() ||
        !a->shape.has_rank || !b->shape.has_rank || a->shape.dims.size() < 2 || b->shape.dims.size() < 2)
      continue;
    const Dim& last = y->shape.dims.back();
    auto r = readers.find(n.outputs[0]);
    if (!last.value || outputs.count(n.outputs[0]) || r == readers.end() || r->second.size() != 1) continue;
    ir::Node& add = g.nodes[r->second[0]];
    if (add.op_type != "Add" || !add.domain.empty() || add.inputs.size() != 2) continue;
    const std::string& bias = add.inputs[0] == n.outputs[0] ? add.inputs[1] : add.inputs[0];
    const ir::TypeInfo* bt = type_of(bias);
    if (bias == n.outputs[0] || !bt || bt->elem_type != DataType::kFloat || !bt->shape.has_rank ||
        bt->shape.dims.size() != 1 || !bt->shape.dims[0].value || *bt->shape.dims[0].value != *last.value)
      continue;
    const ir::Attribute* ta = n.attribute("transA");
    const ir::Attribute* tb = n.attribute("transB");
    const bool trans_a = ta && ta->i, trans_b = tb && tb->i;
    // The fused node takes the Add's place (the bias may be made after the product), and the
    // product goes.
    const std::string bias_name = bias;
    const size_t product_index = size_t(&n - g.nodes.data());
    add.op_type = "FusedMatMulBias";
    add.domain = "ai.onyx.training";
    add.name = n.name.empty() ? add.name : n.name;
    add.inputs = {n.inputs[0], n.inputs[1], bias_name};
    add.attributes.clear();
    add.attributes["transA"] = int_attr("transA", trans_a);
    add.attributes["transB"] = int_attr("transB", trans_b);
    removed.insert(product_index);
  }
  if (removed.empty()) return false;
  model.opsets.emplace("ai.onyx.training", 1);
  erase_nodes(g, removed);
  return true;
}

// A Transpose of rank >= 3 that brings the last dim forward (perm[r-2] == r-1 != perm[r-1],
// e.g. attention's K moved to [B, H, D, S] by (0, 2, 3, 1)), read only as an operand of
// products, becomes the Transpose that keeps the last dim in place (the last two perm entries
// swapped: (0, 2, 1, 3), copying whole rows) and its readers transpose that operand instead
// (transA / transB flipped). Its gradient is then the row-copying Transpose too.
bool keep_last_dims_in_place(ir::Model& model) {
  ir::Graph& g = model.graph;
  const ops::GraphTypes types = ops::infer_graph_types(g, model.opsets);
  const std::map<std::string, std::vector<size_t>> readers = readers_by_node(g);
  const std::set<std::string> outputs = graph_output_names(g);
  auto product_operand = [&](const ir::Node& p, const std::string& v) {
    const bool matmul = p.op_type == "MatMul" && p.domain.empty();
    const bool fused = p.op_type == "FusedMatMul" && p.domain == "com.microsoft";
    if ((!matmul && !fused) || p.inputs.size() != 2 || p.inputs[0] == p.inputs[1]) return false;
    for (const char* f : {"transBatchA", "transBatchB"})
      if (const ir::Attribute* a = p.attribute(f); a && a->i) return false;
    for (const std::string& in : p.inputs) {
      auto t = types.all.find(in);
      if (t == types.all.end() || !t->second.shape.has_rank || t->second.shape.dims.size() < 2) return false;
      const DataType e = t->second.elem_type;
      if (e != DataType::kFloat && e != DataType::kDouble && e != DataType::kFloat16 && e != DataType::kBFloat16)
        return false;
    }
    return p.inputs[0] == v || p.inputs[1] == v;
  };
  bool changed = false;
  for (ir::Node& n : g.nodes) {
    if (n.op_type != "Transpose" || !n.domain.empty() || n.inputs.size() != 1 || n.outputs.size() != 1) continue;
    ir::Attribute* perm = n.attributes.count("perm") ? &n.attributes["perm"] : nullptr;
    const size_t r = perm ? perm->ints.size() : 0;
    if (r < 3 || perm->ints[r - 2] != int64_t(r - 1) || perm->ints[r - 1] == int64_t(r - 1)) continue;
    bool rest_identity = true;  // then it only swaps the last two: fold_transposes_only's case
    for (size_t i = 0; i + 2 < r; ++i) rest_identity = rest_identity && perm->ints[i] == int64_t(i);
    auto rd = readers.find(n.outputs[0]);
    if (rest_identity || outputs.count(n.outputs[0]) || rd == readers.end()) continue;
    bool all_products = true;
    for (size_t k : rd->second) all_products = all_products && product_operand(g.nodes[k], n.outputs[0]);
    if (!all_products) continue;
    std::swap(perm->ints[r - 2], perm->ints[r - 1]);
    for (size_t k : rd->second) {
      ir::Node* p = &g.nodes[k];
      if (p->op_type == "MatMul") {
        p->op_type = "FusedMatMul";
        p->domain = "com.microsoft";
      }
      const char* f = p->inputs[0] == n.outputs[0] ? "transA" : "transB";
      const ir::Attribute* was = p->attribute(f);
      p->attributes[f] = int_attr(f, !(was && was->i));
    }
    changed = true;
  }
  if (changed) model.opsets.emplace("com.microsoft", 1);
  return changed;
}

bool fold_transposes_only(ir::Model& model) {
  const bool moved = keep_last_dims_in_place(model);
  ir::Graph& g = model.graph;
  const ops::GraphTypes types = ops::infer_graph_types(g, model.opsets);
  std::map<std::string, const ir::Node*> swap_of;  // Transpose output -> its node
  for (const ir::Node& n : g.nodes)
    if (swaps_last_two(n, types)) swap_of[n.outputs[0]] = &n;
  bool changed = false;
  for (ir::Node& n : g.nodes) {
    if (n.op_type != "MatMul" || !n.domain.empty() || n.inputs.size() != 2) continue;
    auto rank_at_least_2 = [&](const std::string& v) {  // and of a float type FusedMatMul takes
      auto t = types.all.find(v);
      if (t == types.all.end() || !t->second.shape.has_rank || t->second.shape.dims.size() < 2) return false;
      const DataType e = t->second.elem_type;
      return e == DataType::kFloat || e == DataType::kDouble || e == DataType::kFloat16 || e == DataType::kBFloat16;
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
  if (!changed) return moved;
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

}  // namespace

bool fold_transposes_into_products(ir::Model& model, bool fold_biases) {
  const bool transposes = fold_transposes_only(model);
  const bool biases = fold_biases && fold_bias_adds(model);
  return transposes || biases;
}

}  // namespace onyx::training
