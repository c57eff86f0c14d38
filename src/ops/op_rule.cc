#include "ops/op_rule.h"

#include <algorithm>

namespace onyx::ops {

DataType InferenceContext::input_elem_type(int i) const {
  const ir::TypeInfo* t = input_type(i);
  return t && t->kind == ir::TypeInfo::Kind::kTensor ? t->elem_type : DataType::kUndefined;
}

SymbolicShape InferenceContext::input_shape(int i) const {
  const ir::TypeInfo* t = input_type(i);
  if (t && t->kind == ir::TypeInfo::Kind::kTensor) {
    // Declared dims (graph inputs, value_info) are not checked at load: one outside [0, 2^62]
    // is no real tensor's and reads as unknown, so that rules may rely on 0 <= dim <= 2^62.
    SymbolicShape s = t->shape;
    for (Dim& d : s.dims)
      if (d.value && (*d.value < 0 || *d.value > (int64_t(1) << 62))) d.value.reset();
    return s;
  }
  if (const Tensor* c = constant_input(i)) return known_shape(c->shape());
  return {};
}

int64_t InferenceContext::attr_int(const std::string& name, int64_t fallback) const {
  const ir::Attribute* a = node_.attribute(name);
  return a ? a->i : fallback;
}
float InferenceContext::attr_float(const std::string& name, float fallback) const {
  const ir::Attribute* a = node_.attribute(name);
  return a ? a->f : fallback;
}
std::string InferenceContext::attr_string(const std::string& name, const std::string& fallback) const {
  const ir::Attribute* a = node_.attribute(name);
  return a ? a->s : fallback;
}
std::vector<int64_t> InferenceContext::attr_ints(const std::string& name, std::vector<int64_t> fallback) const {
  const ir::Attribute* a = node_.attribute(name);
  return a ? a->ints : fallback;
}

void InferenceContext::set_output(int i, DataType elem, SymbolicShape shape) {
  ir::TypeInfo t;
  t.kind = ir::TypeInfo::Kind::kTensor;
  t.elem_type = elem;
  t.shape = std::move(shape);
  set_output_type(i, std::move(t));
}

namespace {
// A negative dim is what an overflowed size becomes (the rules are built with -fwrapv, see
// CMakeLists.txt): it is made unknown rather than believed.
void forget_negative_dims(ir::TypeInfo& type) {
  for (Dim& d : type.shape.dims)
    if (d.value && *d.value < 0) d.value.reset();
  if (type.inner) {
    auto inner = std::make_shared<ir::TypeInfo>(*type.inner);
    forget_negative_dims(*inner);
    type.inner = std::move(inner);
  }
}
}  // namespace

void InferenceContext::set_output_type(int i, ir::TypeInfo type) {
  if (i < 0 || i >= num_outputs()) return;
  forget_negative_dims(type);
  output_types_[size_t(i)] = std::move(type);
}

OpRuleRegistry& OpRuleRegistry::global() {
  static OpRuleRegistry* registry = new OpRuleRegistry();
  return *registry;
}

const OpRule* OpRuleRegistry::find(const std::string& domain, const std::string& op, int64_t opset) const {
  for (const OpRule& r : rules_)
    if (r.domain == domain && r.op == op && opset >= r.since_opset && opset <= r.until_opset) return &r;
  return nullptr;
}

SymbolicShape unknown_dims(int64_t rank) {
  SymbolicShape s;
  if (rank < 0 || rank > kMaxStaticRank) return s;  // a rank no real tensor has: say nothing
  s.has_rank = true;
  s.dims.resize(size_t(std::max<int64_t>(rank, 0)));
  return s;
}

SymbolicShape known_shape(const std::vector<int64_t>& dims) {
  SymbolicShape s;
  s.has_rank = true;
  for (int64_t d : dims) s.dims.push_back(Dim{d, ""});
  return s;
}

Result<SymbolicShape> broadcast_symbolic(const std::vector<SymbolicShape>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) {
    if (!s.has_rank) return SymbolicShape{};
    rank = std::max(rank, s.dims.size());
  }
  // unknown_dims gives no dims past kMaxStaticRank: say nothing rather than index past them.
  if (rank > size_t(kMaxStaticRank)) return SymbolicShape{};
  SymbolicShape out = unknown_dims(int64_t(rank));
  for (size_t d = 0; d < rank; ++d) {
    // Gather this dim from every input (missing leading dims are 1).
    bool all_known = true;
    int64_t value = 1;
    std::string symbol;
    bool symbol_consistent = true, any_unknown_not_one = false;
    for (const auto& s : shapes) {
      const size_t pad = rank - s.dims.size();
      if (d < pad) continue;
      const Dim& dim = s.dims[d - pad];
      if (dim.value) {
        if (*dim.value == 1) continue;
        if (value != 1 && *dim.value != value)
          return invalid_model("dims ", value, " and ", *dim.value, " cannot be broadcast together");
        value = *dim.value;
      } else {
        all_known = false;
        any_unknown_not_one = true;
        if (symbol.empty()) symbol = dim.symbol;
        else if (dim.symbol != symbol) symbol_consistent = false;
      }
    }
    Dim& o = out.dims[d];
    if (all_known) {
      o.value = value;
    } else if (value != 1) {
      o.value = value;  // unknown dims must be 1 or equal to it
    } else if (any_unknown_not_one && symbol_consistent && !symbol.empty()) {
      o.symbol = symbol;
    }
  }
  return out;
}

Status infer_same_as_input0(InferenceContext& ctx) {
  if (const ir::TypeInfo* t = ctx.input_type(0)) ctx.set_output_type(0, *t);
  return Status::Ok();
}

namespace {
Status broadcast_into(InferenceContext& ctx, DataType elem) {
  std::vector<SymbolicShape> shapes;
  for (int i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) shapes.push_back(ctx.input_shape(i));
  auto shape = broadcast_symbolic(shapes);
  if (!shape.ok()) {
    ctx.set_output(0, elem, {});
    return shape.take_status();
  }
  ctx.set_output(0, elem, std::move(shape).value());
  return Status::Ok();
}
}  // namespace

Status infer_broadcast(InferenceContext& ctx) {
  if (ctx.opset() < 7 && ctx.has_attr("broadcast")) {  // legacy broadcast: output has A's shape
    return infer_same_as_input0(ctx);
  }
  return broadcast_into(ctx, ctx.input_elem_type(0));
}

Status infer_broadcast_bool(InferenceContext& ctx) {
  if (ctx.opset() < 7 && ctx.has_attr("broadcast")) {
    ctx.set_output(0, DataType::kBool, ctx.input_shape(0));
    return Status::Ok();
  }
  return broadcast_into(ctx, DataType::kBool);
}

Result<SymbolicShape> normalized_stats_shape(const SymbolicShape& x, int64_t axis) {
  if (!x.has_rank) return SymbolicShape{};
  const int64_t rank = int64_t(x.dims.size());
  if (axis < -rank || axis >= rank) return invalid_model("axis ", axis, " is out of range for rank ", rank);
  if (axis < 0) axis += rank;
  SymbolicShape stats = x;
  for (int64_t d = axis; d < rank; ++d) stats.dims[size_t(d)] = Dim{1, ""};
  return stats;
}

}  // namespace onyx::ops
