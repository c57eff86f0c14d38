#include "optimizer/graph_index.h"

#include <algorithm>

namespace onyx::optimizer {
namespace {

void collect_all_names(const ir::Graph& g, std::set<std::string>& out) {
  for (const auto& vi : g.inputs) out.insert(vi.name);
  for (const auto& vi : g.outputs) out.insert(vi.name);
  for (const auto& vi : g.value_infos) out.insert(vi.name);
  for (const auto& kv : g.initializers) out.insert(kv.first);
  for (const auto& n : g.nodes) {
    for (const auto& i : n.inputs) out.insert(i);
    for (const auto& o : n.outputs) out.insert(o);
    for (const auto& kv : n.attributes) {
      if (kv.second.g) collect_all_names(*kv.second.g, out);
      for (const auto& sg : kv.second.graphs) collect_all_names(*sg, out);
    }
  }
}

}  // namespace

void collect_free_names(const ir::Graph& g, std::set<std::string>& out) {
  std::set<std::string> defined;
  for (const auto& vi : g.inputs) defined.insert(vi.name);
  for (const auto& kv : g.initializers) defined.insert(kv.first);
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) defined.insert(o);
  auto use = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name)) out.insert(name);
  };
  for (const auto& n : g.nodes) {
    for (const auto& i : n.inputs) use(i);
    for (const auto& kv : n.attributes) {
      std::set<std::string> inner;
      if (kv.second.g) collect_free_names(*kv.second.g, inner);
      for (const auto& sg : kv.second.graphs) collect_free_names(*sg, inner);
      for (const auto& name : inner) use(name);
    }
  }
  for (const auto& vi : g.outputs) use(vi.name);
}

std::vector<std::string> node_reads(const ir::Node& n) {
  std::vector<std::string> reads;
  for (const auto& i : n.inputs)
    if (!i.empty()) reads.push_back(i);
  for (const auto& kv : n.attributes) {
    std::set<std::string> inner;
    if (kv.second.g) collect_free_names(*kv.second.g, inner);
    for (const auto& sg : kv.second.graphs) collect_free_names(*sg, inner);
    reads.insert(reads.end(), inner.begin(), inner.end());
  }
  return reads;
}

bool has_subgraph(const ir::Node& n) {
  for (const auto& kv : n.attributes)
    if (kv.second.g || !kv.second.graphs.empty()) return true;
  return false;
}

GraphIndex::GraphIndex(const ir::Graph& graph, const ops::GraphTypes* types) : graph_(graph), types_(types) {
  for (const auto& vi : graph.inputs) graph_inputs_.insert(vi.name);
  for (const auto& vi : graph.outputs) graph_outputs_.insert(vi.name);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& n = graph.nodes[i];
    for (const auto& o : n.outputs)
      if (!o.empty()) producer_.emplace(o, i);
    for (const auto& in : n.inputs) {
      if (in.empty()) continue;
      ++input_reads_[in];
      auto& c = consumers_[in];
      if (c.empty() || c.back() != i) c.push_back(i);
    }
    for (const auto& kv : n.attributes) {
      if (kv.second.g) collect_free_names(*kv.second.g, captured_);
      for (const auto& sg : kv.second.graphs) collect_free_names(*sg, captured_);
    }
  }
}

std::optional<size_t> GraphIndex::producer(const std::string& name) const {
  auto it = producer_.find(name);
  if (it == producer_.end()) return std::nullopt;
  return it->second;
}

const ir::Node* GraphIndex::producer_of_type(const std::string& name, const std::string& op) const {
  auto p = producer(name);
  if (!p) return nullptr;
  const ir::Node& n = graph_.nodes[*p];
  return n.op_type == op && n.domain.empty() ? &n : nullptr;
}

const std::vector<size_t>& GraphIndex::consumers(const std::string& name) const {
  static const std::vector<size_t> kNone;
  auto it = consumers_.find(name);
  return it == consumers_.end() ? kNone : it->second;
}

const Tensor* GraphIndex::constant(const std::string& name) const {
  if (name.empty() || graph_inputs_.count(name)) return nullptr;
  auto it = graph_.initializers.find(name);
  return it == graph_.initializers.end() ? nullptr : &it->second;
}

std::optional<double> GraphIndex::scalar(const std::string& name) const {
  const Tensor* t = constant(name);
  if (!t || t->numel() != 1 || !is_float_type(t->dtype())) return std::nullopt;
  return t->get_double(0);
}

bool GraphIndex::single_use(const std::string& name) const {
  auto it = input_reads_.find(name);
  return it != input_reads_.end() && it->second == 1 && !graph_outputs_.count(name) && !captured_.count(name);
}

bool GraphIndex::unused(const std::string& name) const {
  return !input_reads_.count(name) && !graph_outputs_.count(name) && !captured_.count(name);
}

const ir::TypeInfo* GraphIndex::type(const std::string& name) const {
  if (!types_) return nullptr;
  auto it = types_->all.find(name);
  return it == types_->all.end() ? nullptr : &it->second;
}

DataType GraphIndex::elem_type(const std::string& name) const {
  const ir::TypeInfo* t = type(name);
  return t && t->kind == ir::TypeInfo::Kind::kTensor ? t->elem_type : DataType::kUndefined;
}

std::optional<int64_t> GraphIndex::rank(const std::string& name) const {
  const ir::TypeInfo* t = type(name);
  if (!t || t->kind != ir::TypeInfo::Kind::kTensor || !t->shape.has_rank) return std::nullopt;
  return int64_t(t->shape.dims.size());
}

std::optional<Shape> GraphIndex::shape(const std::string& name) const {
  const ir::TypeInfo* t = type(name);
  if (!t || t->kind != ir::TypeInfo::Kind::kTensor || !t->shape.has_rank) return std::nullopt;
  Shape s;
  for (const Dim& d : t->shape.dims) {
    if (!d.value || *d.value < 0) return std::nullopt;
    s.push_back(*d.value);
  }
  return s;
}

std::optional<int64_t> GraphIndex::last_dim(const std::string& name) const {
  const ir::TypeInfo* t = type(name);
  if (!t || t->kind != ir::TypeInfo::Kind::kTensor || !t->shape.has_rank || t->shape.dims.empty()) return std::nullopt;
  const Dim& d = t->shape.dims.back();
  return d.value ? std::optional<int64_t>(*d.value) : std::nullopt;
}

std::string GraphIndex::fresh_name(const std::string& base) const {
  if (taken_.empty()) collect_all_names(graph_, taken_);
  std::string name = base;
  for (int k = 1; taken_.count(name); ++k) name = base + "_" + std::to_string(k);
  taken_.insert(name);
  return name;
}

}  // namespace onyx::optimizer
