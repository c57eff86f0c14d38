// The value of a shape query (Shape, Size, Gather of a Shape) when static types answer it;
// shared by shape_folding and constant_folding's walk.
#pragma once
#include <algorithm>
#include <functional>
#include <optional>

#include "ir/graph.h"

namespace onyx::optimizer {

// `type_of` gives the static type of a value (null when unknown); `constant_of` its constant
// value (null when not constant); `producer_of` the node producing it (null for none).
//   Shape(x)              when every dim of x in [start, end) is known;
//   Size(x)               when every dim of x is known;
//   Gather(Shape(x), idx) with constant int indices and axis 0, when the dims picked are known.
// nullopt otherwise.
inline std::optional<Tensor> fold_shape_query(
    const ir::Node& n, const std::function<const ir::TypeInfo*(const std::string&)>& type_of,
    const std::function<const Tensor*(const std::string&)>& constant_of,
    const std::function<const ir::Node*(const std::string&)>& producer_of) {
  if (!n.domain.empty() || n.inputs.empty() || n.inputs[0].empty() || n.outputs.size() != 1 || n.outputs[0].empty())
    return std::nullopt;
  // The dims a Shape node reports (unknown ones as nullopt); nullopt when x's rank is unknown.
  auto shape_dims = [&](const ir::Node& shape_node) -> std::optional<std::vector<std::optional<int64_t>>> {
    const ir::TypeInfo* t = type_of(shape_node.inputs[0]);
    if (!t || t->kind != ir::TypeInfo::Kind::kTensor || !t->shape.has_rank) return std::nullopt;
    const int64_t rank = int64_t(t->shape.dims.size());
    auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t(0), rank); };
    int64_t start = 0, end = rank;
    if (const ir::Attribute* a = shape_node.attribute("start")) start = clamp(a->i);
    if (const ir::Attribute* a = shape_node.attribute("end")) end = clamp(a->i);
    std::vector<std::optional<int64_t>> dims;
    for (int64_t d = start; d < end; ++d) dims.push_back(t->shape.dims[size_t(d)].value);
    return dims;
  };
  auto int64_tensor = [](const Shape& shape, const std::vector<int64_t>& values) {
    Tensor t(DataType::kInt64, shape);
    std::copy(values.begin(), values.end(), t.data<int64_t>());
    return t;
  };
  if (n.op_type == "Shape") {
    auto dims = shape_dims(n);
    if (!dims) return std::nullopt;
    std::vector<int64_t> v;
    for (const auto& d : *dims) {
      if (!d) return std::nullopt;
      v.push_back(*d);
    }
    return int64_tensor({int64_t(v.size())}, v);
  }
  if (n.op_type == "Size") {
    const ir::TypeInfo* t = type_of(n.inputs[0]);
    if (!t || t->kind != ir::TypeInfo::Kind::kTensor || !t->shape.has_rank) return std::nullopt;
    int64_t size = 1;
    for (const Dim& d : t->shape.dims) {
      if (!d.value || __builtin_mul_overflow(size, *d.value, &size)) return std::nullopt;
    }
    return int64_tensor({}, {size});
  }
  if (n.op_type == "Gather" && n.inputs.size() == 2) {
    const ir::Attribute* axis = n.attribute("axis");
    const ir::Node* shape_node = producer_of(n.inputs[0]);
    const Tensor* idx = constant_of(n.inputs[1]);
    if ((axis && axis->i != 0 && axis->i != -1) || !shape_node || shape_node->op_type != "Shape" ||
        !shape_node->domain.empty() || shape_node->inputs.empty() || !idx)
      return std::nullopt;
    if (idx->dtype() != DataType::kInt64 && idx->dtype() != DataType::kInt32) return std::nullopt;
    auto dims = shape_dims(*shape_node);
    if (!dims) return std::nullopt;
    const int64_t rank = int64_t(dims->size());
    std::vector<int64_t> v;
    for (int64_t k = 0; k < idx->numel(); ++k) {
      int64_t j = idx->get_int64(k);
      if (j < 0) j += rank;
      if (j < 0 || j >= rank || !(*dims)[size_t(j)]) return std::nullopt;
      v.push_back(*(*dims)[size_t(j)]);
    }
    return int64_tensor(idx->shape(), v);
  }
  return std::nullopt;
}

}  // namespace onyx::optimizer
