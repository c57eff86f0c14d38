// shape_folding (basic): shape queries answered by static inference become initializers.
//   Shape(x)              when every dim of x in [start, end) is known;
//   Size(x)               when every dim of x is known;
//   Gather(Shape(x), idx) with constant indices and axis 0, when the dims it picks are known
//                         (torch's x.size(i) on a tensor with some symbolic dims).
// Folding these lets constant_folding collapse the Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape chains exporters write. x itself stays (other readers, or dead_node_elimination).
#include <algorithm>

#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

// The dims of x a Shape node reports, as optional values; nullopt when x's rank is unknown.
std::optional<std::vector<std::optional<int64_t>>> shape_dims(const GraphIndex& g, const ir::Node& shape_node) {
  const ir::TypeInfo* t = g.type(shape_node.inputs[0]);
  if (!t || t->kind != ir::TypeInfo::Kind::kTensor || !t->shape.has_rank) return std::nullopt;
  const int64_t rank = int64_t(t->shape.dims.size());
  auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t(0), rank); };
  int64_t start = 0, end = rank;
  if (const ir::Attribute* a = shape_node.attribute("start")) start = clamp(a->i);
  if (const ir::Attribute* a = shape_node.attribute("end")) end = clamp(a->i);
  std::vector<std::optional<int64_t>> dims;
  for (int64_t d = start; d < end; ++d) dims.push_back(t->shape.dims[size_t(d)].value);
  return dims;
}

Tensor int64_tensor(const Shape& shape, const std::vector<int64_t>& values) {
  Tensor t(DataType::kInt64, shape);
  std::copy(values.begin(), values.end(), t.data<int64_t>());
  return t;
}

class ShapeFolding final : public RulePass {
 public:
  std::string name() const override { return "shape_folding"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& n = g.node(i);
    if (!n.domain.empty() || n.inputs.empty() || n.inputs[0].empty() || n.outputs.size() != 1 || n.outputs[0].empty())
      return std::nullopt;
    std::optional<Tensor> value;
    if (n.op_type == "Shape") {
      auto dims = shape_dims(g, n);
      if (!dims) return std::nullopt;
      std::vector<int64_t> v;
      for (const auto& d : *dims) {
        if (!d) return std::nullopt;
        v.push_back(*d);
      }
      value = int64_tensor({int64_t(v.size())}, v);
    } else if (n.op_type == "Size") {
      auto shape = g.shape(n.inputs[0]);
      if (!shape) return std::nullopt;
      value = int64_tensor({}, {shape_size(*shape)});
    } else if (n.op_type == "Gather" && n.inputs.size() == 2) {
      const ir::Attribute* axis = n.attribute("axis");
      const ir::Node* shape_node = g.producer_of_type(n.inputs[0], "Shape");
      const Tensor* idx = g.constant(n.inputs[1]);
      if ((axis && axis->i != 0 && axis->i != -1) || !shape_node || !idx) return std::nullopt;
      if (idx->dtype() != DataType::kInt64 && idx->dtype() != DataType::kInt32) return std::nullopt;
      auto dims = shape_dims(g, *shape_node);
      if (!dims) return std::nullopt;
      const int64_t rank = int64_t(dims->size());
      std::vector<int64_t> v;
      for (int64_t k = 0; k < idx->numel(); ++k) {
        int64_t j = idx->get_int64(k);
        if (j < 0) j += rank;
        if (j < 0 || j >= rank || !(*dims)[size_t(j)]) return std::nullopt;
        v.push_back(*(*dims)[size_t(j)]);
      }
      value = int64_tensor(idx->shape(), v);
    } else {
      return std::nullopt;
    }
    Patch p;
    p.remove_nodes = {i};
    p.add_initializers.emplace_back(n.outputs[0], std::move(*value));
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kSimplify, 20, ShapeFolding);

}  // namespace onyx::optimizer
