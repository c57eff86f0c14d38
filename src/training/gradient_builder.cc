#include "training/gradient_builder.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>

#include "core/data_type.h"
#include "training/gradient_rule.h"

namespace onyx::training {

// ------------------------------------------------------------------------------ registry

GradientRegistry& GradientRegistry::global() {
  static GradientRegistry registry;
  return registry;
}

void GradientRegistry::add(const std::string& domain, const std::string& op, GradientRule rule) {
  rules_[{domain == "ai.onnx" ? "" : domain, op}] = std::move(rule);
}

const GradientRule* GradientRegistry::find(const std::string& domain, const std::string& op) const {
  auto it = rules_.find({domain == "ai.onnx" ? "" : domain, op});
  return it == rules_.end() ? nullptr : &it->second;
}

std::string GradientRegistry::names() const {
  std::string out;
  for (const auto& [key, rule] : rules_) out += (out.empty() ? "" : ", ") + (key.first.empty() ? "" : key.first + ":") + key.second;
  return out;
}

ir::Attribute GradientEmitter::int_attr(const std::string& name, int64_t v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::kInt;
  a.i = v;
  return a;
}

ir::Attribute GradientEmitter::ints_attr(const std::string& name, std::vector<int64_t> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::kInts;
  a.ints = std::move(v);
  return a;
}

ir::Attribute GradientEmitter::float_attr(const std::string& name, float v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::kFloat;
  a.f = v;
  return a;
}

ir::Attribute GradientEmitter::string_attr(const std::string& name, std::string v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::kString;
  a.s = std::move(v);
  return a;
}

std::string GradientEmitter::unsqueeze(const std::string& x, const std::vector<int64_t>& axes) {
  return opset() >= 13 ? op("Unsqueeze", {x, int64s(axes)}) : op("Unsqueeze", {x}, {{"axes", ints_attr("axes", axes)}});
}

namespace {

Result<Tensor> scalar_tensor(DataType dtype, double value, Shape shape = {}) {
  ONYX_ASSIGN_OR_RETURN(Tensor t, Tensor::create(dtype, shape));
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (dtype) {
      case DataType::kFloat: t.data<float>()[i] = float(value); break;
      case DataType::kDouble: t.data<double>()[i] = value; break;
      case DataType::kFloat16: t.data<Float16>()[i] = Float16(float(value)); break;
      case DataType::kInt64: t.data<int64_t>()[i] = int64_t(value); break;
      case DataType::kInt32: t.data<int32_t>()[i] = int32_t(value); break;
      default: return not_implemented("gradients of ", data_type_name(dtype), " values");
    }
  }
  return t;
}

// The emitter over one graph: new nodes are collected and appended after the forward nodes.
class Emitter final : public GradientEmitter {
 public:
  Emitter(ir::Graph& graph, int64_t opset, const ops::GraphTypes& types) : graph_(graph), opset_(opset), types_(types) {
    for (const auto& vi : graph.inputs) used_.insert(vi.name);
    for (const auto& vi : graph.outputs) used_.insert(vi.name);
    for (const auto& [name, t] : graph.initializers) used_.insert(name);
    for (const auto& n : graph.nodes) {
      used_.insert(n.name);
      for (const auto& o : n.outputs) used_.insert(o);
    }
  }

  int64_t opset() const override { return opset_; }

  std::string fresh(const std::string& hint) {
    for (;;) {
      std::string name = hint + "_grad" + std::to_string(counter_++);
      if (used_.insert(name).second) return name;
    }
  }

  std::vector<std::string> node(const std::string& op, const std::vector<std::string>& inputs,
                                std::map<std::string, ir::Attribute> attributes, size_t outputs,
                                const std::string& domain) override {
    ir::Node n;
    n.op_type = op;
    n.domain = domain;
    n.name = fresh("Grad/" + op);
    n.inputs = inputs;
    for (size_t k = 0; k < outputs; ++k) n.outputs.push_back(fresh(op));
    n.attributes = std::move(attributes);
    std::vector<std::string> out = n.outputs;
    emitted_.push_back(std::move(n));
    return out;
  }

  std::string constant(Tensor t, const std::string& hint) override {
    const std::string name = fresh(hint);
    graph_.initializers.emplace(name, std::move(t));
    return name;
  }

  Result<std::string> scalar(DataType dtype, double value) override {
    ONYX_ASSIGN_OR_RETURN(Tensor t, scalar_tensor(dtype, value));
    return constant(std::move(t), "scalar");
  }

  std::string int64s(const std::vector<int64_t>& values) override {
    Tensor t(DataType::kInt64, Shape{int64_t(values.size())});
    std::copy(values.begin(), values.end(), t.data<int64_t>());
    return constant(std::move(t), "ints");
  }

  const Tensor* initializer(const std::string& name) const override {
    auto it = graph_.initializers.find(name);
    return it == graph_.initializers.end() ? nullptr : &it->second;
  }

  const ir::TypeInfo& type_of(const std::string& value) const override {
    static const ir::TypeInfo kUnknown;
    auto it = types_.all.find(value);
    return it == types_.all.end() ? kUnknown : it->second;
  }

  std::string reduce_sum(const std::string& x, const std::vector<int64_t>& axes, bool keepdims) override {
    if (opset_ >= 13) return op("ReduceSum", {x, int64s(axes)}, {{"keepdims", int_attr("keepdims", keepdims)}});
    return op("ReduceSum", {x}, {{"axes", ints_attr("axes", axes)}, {"keepdims", int_attr("keepdims", keepdims)}});
  }

  Result<std::string> sum_to_shape_of(const std::string& grad, const std::string& shaped_as,
                                      const std::string& like) override {
    return sum_to_shape(grad, type_of(shaped_as).shape, like);
  }

  Result<std::string> sum_to_shape(const std::string& grad, const SymbolicShape& from_shape,
                                   const std::string& like) override {
    const ir::TypeInfo& to = type_of(like);
    if (!from_shape.has_rank || !to.shape.has_rank)
      return not_implemented("the gradient of a broadcast from '", like, "' to ", from_shape.to_string(),
                             " needs both ranks known statically (got ", from_shape.to_string(), " and ",
                             to.shape.to_string(), ")");
    const auto& fd = from_shape.dims;
    const auto& td = to.shape.dims;
    if (td.size() > fd.size())
      return invalid_argument("gradient: '", like, "' ", to.shape.to_string(), " has more dims than ",
                              from_shape.to_string());
    const size_t lead = fd.size() - td.size();
    std::vector<int64_t> axes;
    for (size_t i = 0; i < lead; ++i) axes.push_back(int64_t(i));
    std::vector<int64_t> target;
    bool target_known = true;
    for (size_t i = 0; i < td.size(); ++i) {
      const Dim& a = fd[lead + i];
      const Dim& b = td[i];
      const bool same = (a.value && b.value && *a.value == *b.value) ||
                        (!a.symbol.empty() && a.symbol == b.symbol);
      if (b.value && *b.value == 1 && !(a.value && *a.value == 1)) {
        axes.push_back(int64_t(lead + i));
      } else if (!same) {
        if (opset_ < 13)
          return not_implemented("the gradient of a broadcast from '", like, "' ", to.shape.to_string(), " to ",
                                 from_shape.to_string(), " needs the sizes of dim ", i,
                                 " known statically before opset 13");
        return sum_to_shape_at_run_time(grad, lead, like);
      }
      target.push_back(b.value ? *b.value : 0);
      target_known = target_known && b.value.has_value();
    }
    if (axes.empty()) return grad;
    // Summing the added dims away (keepdims 0) leaves the size-1 dims to keep.
    std::string summed = reduce_sum(grad, axes, false);
    if (lead == axes.size()) return summed;
    if (target_known) return op("Reshape", {summed, int64s(target)});
    return op("Reshape", {summed, op("Shape", {like})});
  }

  // sum_to_shape_of when sizes are known only at run time (opset 13+): the added leading dims
  // summed away, then the dims where `like` has 1 and the gradient does not, found from the
  // two shapes at run time (ReduceSum with noop_with_empty_axes: none is a no-op).
  std::string sum_to_shape_at_run_time(const std::string& grad, size_t lead, const std::string& like) {
    std::string g = grad;
    if (lead > 0) {
      std::vector<int64_t> leading;
      for (size_t i = 0; i < lead; ++i) leading.push_back(int64_t(i));
      g = reduce_sum(g, leading, false);
    }
    const std::string one = int64s({1});
    const std::string like_shape = op("Shape", {like});
    const std::string stretched =
        op("And", {op("Equal", {like_shape, one}), op("Not", {op("Equal", {op("Shape", {g}), one})})});
    const std::string axes = op("Reshape", {op("NonZero", {stretched}), int64s({-1})});
    return op("ReduceSum", {g, axes},
              {{"keepdims", int_attr("keepdims", 1)}, {"noop_with_empty_axes", int_attr("noop_with_empty_axes", 1)}});
  }

  std::vector<ir::Node> take_emitted() { return std::move(emitted_); }

 private:
  ir::Graph& graph_;
  int64_t opset_;
  const ops::GraphTypes& types_;
  std::set<std::string> used_;
  std::vector<ir::Node> emitted_;
  size_t counter_ = 0;
};

// Whether a subgraph of `n` (If, Loop, Scan bodies) reads one of `values` from the outer
// scope: such a node depends on them though its inputs do not name them.
bool subgraph_reads(const ir::Node& n, const std::set<std::string>& values) {
  auto reads = [&](const std::shared_ptr<ir::Graph>& g, auto&& self) -> bool {
    if (!g) return false;
    for (const auto& inner : g->nodes) {
      for (const auto& in : inner.inputs)
        if (!in.empty() && values.count(in)) return true;
      for (const auto& [name, a] : inner.attributes) {
        if (self(a.g, self)) return true;
        for (const auto& sub : a.graphs)
          if (self(sub, self)) return true;
      }
    }
    return false;
  };
  for (const auto& [name, a] : n.attributes) {
    if (reads(a.g, reads)) return true;
    for (const auto& g : a.graphs)
      if (reads(g, reads)) return true;
  }
  return false;
}

bool differentiable(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16 ||
         t == DataType::kUndefined;
}

}  // namespace

Result<std::vector<std::string>> build_gradients(ir::Graph& graph, const std::map<std::string, int64_t>& opsets,
                                                 const ops::GraphTypes& types, const GradientRequest& request) {
  auto opset_it = opsets.find("");
  Emitter emit(graph, opset_it == opsets.end() ? 1 : opset_it->second, types);

  // Which values exist, and who reads what.
  std::set<std::string> known;
  for (const auto& vi : graph.inputs) known.insert(vi.name);
  for (const auto& [name, t] : graph.initializers) known.insert(name);
  std::unordered_map<std::string, std::vector<size_t>> readers;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const auto& o : graph.nodes[i].outputs) known.insert(o);
    for (const auto& in : graph.nodes[i].inputs)
      if (!in.empty()) readers[in].push_back(i);
  }
  for (const auto& x : request.xs)
    if (!known.count(x)) return not_found("gradient: the graph has no value '", x, "' to differentiate with respect to");
  if (!known.count(request.y)) return not_found("gradient: the graph has no value '", request.y, "' to differentiate");
  for (const auto& [y, seed] : request.more_ys) {
    if (!known.count(y)) return not_found("gradient: the graph has no value '", y, "' to differentiate");
    if (!known.count(seed)) return not_found("gradient: the graph has no value '", seed, "' to seed '", y, "' with");
  }

  // Values that depend on an x, and nodes on a path from an x to y.
  std::set<std::string> depends(request.xs.begin(), request.xs.end());
  // A node whose subgraph reads a dependent value from the outer scope depends on it too (and,
  // with no rule for If / Loop / Scan, makes the gradient a clear error, never a silent zero).
  std::vector<bool> captures(graph.nodes.size(), false);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& n = graph.nodes[i];
    captures[i] = subgraph_reads(n, depends);
    if (captures[i] ||
        std::any_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& v) { return depends.count(v) > 0; }))
      for (const auto& o : n.outputs) {
        // An output known to be an integer or bool (a Shape, an argmax, a mask) carries no
        // gradient, so what is computed from it alone (ConstantOfShape of a Shape) does not
        // depend on x. Outputs of unknown type are followed, to be safe.
        const DataType t = emit.type_of(o).elem_type;
        if (t == DataType::kUndefined || is_float_type(t) || captures[i]) depends.insert(o);
      }
  }
  std::set<std::string> needed = {request.y};
  for (const auto& more : request.more_ys) needed.insert(more.first);
  std::vector<bool> on_path(graph.nodes.size(), false);
  for (size_t i = graph.nodes.size(); i-- > 0;) {
    const ir::Node& n = graph.nodes[i];
    if (std::none_of(n.outputs.begin(), n.outputs.end(), [&](const std::string& v) { return needed.count(v) > 0; }))
      continue;
    bool reads_x = captures[i];
    for (const auto& in : n.inputs)
      if (!in.empty() && depends.count(in)) {
        needed.insert(in);
        reads_x = true;
      }
    on_path[i] = reads_x;
  }

  // The chain of nodes from a y back to node i, for messages.
  std::set<std::string> ys = {request.y};
  for (const auto& more : request.more_ys) ys.insert(more.first);
  auto path_from_y = [&](size_t i) {
    std::string path = graph.nodes[i].label();
    size_t at = i;
    for (int steps = 0; steps < 64; ++steps) {
      const ir::Node& n = graph.nodes[at];
      if (std::any_of(n.outputs.begin(), n.outputs.end(), [&](const std::string& o) { return ys.count(o) > 0; }))
        break;
      bool moved = false;
      for (const auto& o : n.outputs) {
        for (size_t r : readers[o])
          if (on_path[r]) {
            at = r;
            moved = true;
            break;
          }
        if (moved) break;
      }
      if (!moved) break;
      path = graph.nodes[at].label() + " <- " + path;
    }
    const ir::Node& end = graph.nodes[at];
    auto y = std::find_if(end.outputs.begin(), end.outputs.end(), [&](const std::string& o) { return ys.count(o) > 0; });
    return "'" + (y != end.outputs.end() ? *y : request.y) + "' <- " + path;
  };

  std::unordered_map<std::string, std::vector<std::string>> contributions;
  auto accumulated = [&](const std::string& value) -> std::string {
    auto it = contributions.find(value);
    if (it == contributions.end() || it->second.empty()) return "";
    if (it->second.size() == 1) return it->second.front();
    const std::string sum = emit.op("Sum", it->second);
    it->second = {sum};
    return sum;
  };

  if (request.seed.empty()) {
    const DataType yt = emit.type_of(request.y).elem_type;
    if (yt == DataType::kUndefined) return not_implemented("gradient: the element type of '", request.y, "' is not known statically");
    ONYX_ASSIGN_OR_RETURN(Tensor one, scalar_tensor(yt, 1.0, Shape{1}));
    ir::Attribute value;
    value.name = "value";
    value.type = ir::Attribute::Type::kTensor;
    value.t = std::move(one);
    contributions[request.y].push_back(emit.op("ConstantOfShape", {emit.op("Shape", {request.y})}, {{"value", value}}));
  } else {
    contributions[request.y].push_back(request.seed);
  }
  for (const auto& [y, seed] : request.more_ys) contributions[y].push_back(seed);

  const GradientRegistry& rules = GradientRegistry::global();
  for (size_t i = graph.nodes.size(); i-- > 0;) {
    if (!on_path[i]) continue;
    const ir::Node& n = graph.nodes[i];
    GradientContext ctx{n, {}, {}, {}, emit};
    bool any = false;
    for (const auto& o : n.outputs) {
      ctx.output_grads.push_back(o.empty() ? "" : accumulated(o));
      any = any || !ctx.output_grads.back().empty();
    }
    if (!any) continue;
    // Padded (GradientContext's contract): a rule may index its op's inputs and outputs as the
    // op defines them even on a node that has fewer.
    if (ctx.output_grads.size() < GradientContext::kMinSlots) ctx.output_grads.resize(GradientContext::kMinSlots);
    const GradientRule* rule = rules.find(n.domain, n.op_type);
    if (!rule)
      return not_implemented("gradient: no gradient rule for ", n.domain.empty() ? "" : n.domain + ":", n.op_type,
                             " (node ", n.label(), ", on the path ", path_from_y(i), "); onyx has rules for ",
                             rules.names());
    for (const auto& in : n.inputs)
      ctx.needs_grad.push_back(!in.empty() && depends.count(in) > 0 && differentiable(emit.type_of(in).elem_type));
    if (ctx.needs_grad.size() < GradientContext::kMinSlots) ctx.needs_grad.resize(GradientContext::kMinSlots, false);
    ctx.input_grads.assign(std::max(n.inputs.size(), GradientContext::kMinSlots), "");
    Status s;
    try {
      s = (*rule)(ctx);
    } catch (const MissingNodeSlot&) {
      // GradientContext::input / output read past the node's inputs or outputs: a node with
      // fewer than its op takes (a hostile or broken model), not a bug in the rule.
      s = invalid_model("node ", n.label(), " has too few inputs or outputs for ", n.op_type, " (", n.inputs.size(),
                        " inputs, ", n.outputs.size(), " outputs)");
    }
    if (!s.ok()) return std::move(s).with_context("gradient of node " + n.label() + " on the path " + path_from_y(i));
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (ctx.needs_grad[k] && !ctx.input_grads[k].empty()) contributions[n.inputs[k]].push_back(ctx.input_grads[k]);
  }

  std::vector<std::string> out;
  for (const auto& x : request.xs) {
    std::string g = accumulated(x);
    if (g.empty()) {  // y does not depend on x: zeros of x's shape
      const DataType xt = emit.type_of(x).elem_type;
      if (xt == DataType::kUndefined) return not_implemented("gradient: the element type of '", x, "' is not known statically");
      ONYX_ASSIGN_OR_RETURN(Tensor zero, scalar_tensor(xt, 0.0, Shape{1}));
      ir::Attribute value;
      value.name = "value";
      value.type = ir::Attribute::Type::kTensor;
      value.t = std::move(zero);
      g = emit.op("ConstantOfShape", {emit.op("Shape", {x})}, {{"value", value}});
    }
    out.push_back(g);
  }
  for (ir::Node& n : emit.take_emitted()) graph.nodes.push_back(std::move(n));
  return out;
}

}  // namespace onyx::training
