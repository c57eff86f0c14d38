#include "optimizer/fusions/shape_trace.h"

#include <algorithm>
#include <cmath>

#include "optimizer/fusions/fusion_util.h"

namespace onyx::optimizer {


const Dim* static_dim(const GraphIndex& g, const std::string& v, int64_t axis) {
  const ir::TypeInfo* t = g.type(v);
  if (!t || t->kind != ir::TypeInfo::Kind::kTensor || !t->shape.has_rank || axis < 0 ||
      axis >= int64_t(t->shape.dims.size()))
    return nullptr;
  return &t->shape.dims[size_t(axis)];
}

bool same_dim(const Dim* a, const Dim* b) {
  if (!a || !b) return false;
  if (a->value || b->value) return a->value && b->value && *a->value == *b->value;
  return !a->symbol.empty() && a->symbol == b->symbol;
}

// The elements of the 1-D integer tensor `name` when they can be traced through constants,
// Shape, Gather (axis 0, constant indices), Unsqueeze of a scalar, Slice (step 1), Concat
// and Cast.
std::optional<std::vector<ShapeElem>> shape_elements(const GraphIndex& g, const std::string& name, int depth) {
  if (depth > 8) return std::nullopt;
  if (const Tensor* c = g.constant(name)) {
    if (c->rank() > 1 || (c->dtype() != DataType::kInt64 && c->dtype() != DataType::kInt32)) return std::nullopt;
    std::vector<ShapeElem> out;
    for (int64_t i = 0; i < c->numel(); ++i) out.push_back({c->get_int64(i), "", -1});
    return out;
  }
  auto p = g.producer(name);
  if (!p) return std::nullopt;
  const ir::Node& n = g.node(*p);
  if (!n.domain.empty() || n.inputs.empty()) return std::nullopt;
  if (n.op_type == "Shape") {
    auto rank = g.rank(n.inputs[0]);
    if (!rank) return std::nullopt;
    auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + *rank : v, int64_t(0), *rank); };
    int64_t start = 0, end = *rank;
    if (const ir::Attribute* a = n.attribute("start")) start = clamp(a->i);
    if (const ir::Attribute* a = n.attribute("end")) end = clamp(a->i);
    std::vector<ShapeElem> out;
    for (int64_t d = start; d < end; ++d) {
      const Dim* dim = static_dim(g, n.inputs[0], d);
      out.push_back({dim ? dim->value : std::nullopt, n.inputs[0], d});
    }
    return out;
  }
  // Unsqueeze of a scalar and Squeeze of one element keep that element (as a scalar or a
  // 1-D tensor: the traces do not tell the two apart).
  if (n.op_type == "Cast" || (n.op_type == "Unsqueeze" && g.rank(n.inputs[0]) == 0) || n.op_type == "Squeeze") {
    auto in = shape_elements(g, n.inputs[0], depth + 1);
    if (!in || (n.op_type != "Cast" && in->size() != 1)) return std::nullopt;
    return in;
  }
  if (n.op_type == "Gather" && n.inputs.size() == 2) {
    const ir::Attribute* axis = n.attribute("axis");
    const Tensor* idx = g.constant(n.inputs[1]);
    if ((axis && axis->i != 0) || !idx || idx->rank() > 1) return std::nullopt;
    // Shape(x) of a tensor whose rank is unknown: non-negative indices still name its dims.
    auto s = g.producer(n.inputs[0]);
    if (s && is_op(g.node(*s), "Shape") && !g.node(*s).attribute("start") && !g.rank(g.node(*s).inputs[0])) {
      std::vector<ShapeElem> out;
      for (int64_t i = 0; i < idx->numel(); ++i) {
        if (idx->get_int64(i) < 0) return std::nullopt;
        out.push_back({std::nullopt, g.node(*s).inputs[0], idx->get_int64(i)});
      }
      return out;
    }
    auto in = shape_elements(g, n.inputs[0], depth + 1);
    if (!in) return std::nullopt;
    std::vector<ShapeElem> out;
    for (int64_t i = 0; i < idx->numel(); ++i) {
      int64_t j = idx->get_int64(i);
      if (j < 0) j += int64_t(in->size());
      if (j < 0 || j >= int64_t(in->size())) return std::nullopt;
      out.push_back((*in)[size_t(j)]);
    }
    return out;
  }
  if (n.op_type == "Slice" && n.inputs.size() >= 3) {
    const Tensor* starts = g.constant(n.inputs[1]);
    const Tensor* ends = g.constant(n.inputs[2]);
    const Tensor* axes = n.inputs.size() > 3 && !n.inputs[3].empty() ? g.constant(n.inputs[3]) : nullptr;
    const Tensor* steps = n.inputs.size() > 4 && !n.inputs[4].empty() ? g.constant(n.inputs[4]) : nullptr;
    if (!starts || !ends || starts->numel() != 1 || ends->numel() != 1) return std::nullopt;
    if ((n.inputs.size() > 3 && !n.inputs[3].empty() && (!axes || axes->get_int64(0) != 0)) ||
        (n.inputs.size() > 4 && !n.inputs[4].empty() && (!steps || steps->get_int64(0) != 1)))
      return std::nullopt;
    auto in = shape_elements(g, n.inputs[0], depth + 1);
    if (!in) return std::nullopt;
    const int64_t size = int64_t(in->size());
    auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + size : v, int64_t(0), size); };
    const int64_t b = clamp(starts->get_int64(0)), e = clamp(ends->get_int64(0));
    return std::vector<ShapeElem>(in->begin() + b, in->begin() + std::max(b, e));
  }
  if (n.op_type == "Concat") {
    const ir::Attribute* axis = n.attribute("axis");
    if (!axis || (axis->i != 0 && axis->i != -1)) return std::nullopt;
    std::vector<ShapeElem> out;
    for (const auto& in : n.inputs) {
      auto part = shape_elements(g, in, depth + 1);
      if (!part) return std::nullopt;
      out.insert(out.end(), part->begin(), part->end());
    }
    return out;
  }
  return std::nullopt;
}

std::optional<DimExpr> dim_expr(const GraphIndex& g, const std::string& name, const DimSymbol& symbol, int depth) {
  if (depth > 8) return std::nullopt;
  // One element through Squeeze / Unsqueeze (any axes: a one-element tensor keeps its value).
  if (auto p = g.producer(name);
      p && (is_op(g.node(*p), "Squeeze") || is_op(g.node(*p), "Unsqueeze")) && !g.node(*p).inputs.empty()) {
    const Shape* s = nullptr;
    auto shape = g.shape(g.node(*p).inputs[0]);
    if (shape) s = &*shape;
    if (s && shape_size(*s) == 1) return dim_expr(g, g.node(*p).inputs[0], symbol, depth + 1);
  }
  if (auto p = g.producer(name); p && (is_op(g.node(*p), "Sub") || is_op(g.node(*p), "Add"))) {
    const ir::Node& n = g.node(*p);
    if (n.inputs.size() != 2) return std::nullopt;
    auto a = dim_expr(g, n.inputs[0], symbol, depth + 1), b = dim_expr(g, n.inputs[1], symbol, depth + 1);
    if (!a || !b) return std::nullopt;
    const int64_t sign = is_op(n, "Sub") ? -1 : 1;
    a->constant += sign * b->constant;
    for (const auto& [sym, c] : b->terms)
      if ((a->terms[sym] += sign * c) == 0) a->terms.erase(sym);
    return a;
  }
  auto e = shape_elements(g, name);
  if (!e || e->size() != 1) return std::nullopt;
  const ShapeElem& x = (*e)[0];
  DimExpr out;
  if (x.value) {
    out.constant = *x.value;
    return out;
  }
  const int sym = x.of.empty() ? -1 : symbol(x.of, x.axis);
  if (sym < 0) return std::nullopt;
  out.terms[sym] = 1;
  return out;
}

std::optional<double> scalar_value(const GraphIndex& g, const std::string& name, const DimValue& dim, int depth) {
  if (depth > 8) return std::nullopt;
  if (const Tensor* c = g.constant(name)) {
    if (c->numel() != 1 || (!is_float_type(c->dtype()) && !is_integer_type(c->dtype()))) return std::nullopt;
    return c->get_double(0);
  }
  auto p = g.producer(name);
  if (!p) return std::nullopt;
  const ir::Node& n = g.node(*p);
  if (n.domain.empty() && n.inputs.size() >= 1 &&
      (n.op_type == "Cast" || n.op_type == "Squeeze" || n.op_type == "Unsqueeze" || n.op_type == "Sqrt")) {
    if (n.op_type == "Cast") {  // to a float type, or of an integer: the value is kept
      const ir::Attribute* to = n.attribute("to");
      if (!to || !(is_float_type(DataType(to->i)) || is_integer_type(g.elem_type(n.inputs[0])))) return std::nullopt;
    }
    auto v = scalar_value(g, n.inputs[0], dim, depth + 1);
    if (v && n.op_type == "Sqrt") return *v >= 0 ? std::optional<double>(std::sqrt(*v)) : std::nullopt;
    if (v) return v;
  }
  if (n.domain.empty() && n.inputs.size() == 2 && (n.op_type == "Pow" || n.op_type == "Mul" || n.op_type == "Div")) {
    auto a = scalar_value(g, n.inputs[0], dim, depth + 1), b = scalar_value(g, n.inputs[1], dim, depth + 1);
    if (!a || !b) return std::nullopt;
    const double r = n.op_type == "Pow" ? std::pow(*a, *b) : n.op_type == "Mul" ? *a * *b : *a / *b;
    return std::isfinite(r) ? std::optional<double>(r) : std::nullopt;
  }
  auto e = shape_elements(g, name);
  if (!e || e->size() != 1) return std::nullopt;
  if ((*e)[0].value) return double(*(*e)[0].value);
  if ((*e)[0].of.empty()) return std::nullopt;
  auto v = dim((*e)[0].of, (*e)[0].axis);
  return v ? std::optional<double>(double(*v)) : std::nullopt;
}

}  // namespace onyx::optimizer
