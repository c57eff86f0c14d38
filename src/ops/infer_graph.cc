#include "ops/infer_graph.h"

#include "core/guard.h"

#include <set>

#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

ir::TypeInfo tensor_type(const Tensor& t) {
  ir::TypeInfo type;
  type.kind = ir::TypeInfo::Kind::kTensor;
  type.elem_type = t.dtype();
  type.shape = known_shape(t.shape());
  return type;
}

// Fills unknown parts of `rule` from `declared` when the two describe the same tensor.
ir::TypeInfo merge(const ir::TypeInfo& rule, const ir::TypeInfo& declared) {
  if (rule.kind == ir::TypeInfo::Kind::kUnknown) return declared;
  if (rule.kind != ir::TypeInfo::Kind::kTensor || declared.kind != ir::TypeInfo::Kind::kTensor) return rule;
  ir::TypeInfo out = rule;
  if (out.elem_type == DataType::kUndefined) out.elem_type = declared.elem_type;
  if (!out.shape.has_rank) {
    out.shape = declared.shape;
  } else if (declared.shape.has_rank && declared.shape.dims.size() == out.shape.dims.size()) {
    for (size_t d = 0; d < out.shape.dims.size(); ++d)
      if (!out.shape.dims[d].value && out.shape.dims[d].symbol.empty()) out.shape.dims[d] = declared.shape.dims[d];
  }
  return out;
}

}  // namespace

GraphTypes infer_graph_types(const ir::Graph& graph, const std::map<std::string, int64_t>& opsets) {
  GraphTypes result;
  std::unordered_map<std::string, const Tensor*> constants;
  std::unordered_map<std::string, ir::TypeInfo> declared;
  for (const auto& vi : graph.value_infos) declared[vi.name] = vi.type;
  for (const auto& vi : graph.outputs) declared[vi.name] = vi.type;
  for (const auto& vi : graph.inputs) result.all[vi.name] = vi.type;
  std::set<std::string> feedable;
  for (const auto& vi : graph.inputs) feedable.insert(vi.name);
  for (const auto& [name, t] : graph.initializers) {
    if (!result.all.count(name)) result.all[name] = tensor_type(t);
    // A weight whose data a kernel packed away (null data) still has its type, not a value.
    if (!feedable.count(name) && (t.nbytes() == 0 || t.bytes_in_place())) constants[name] = &t;
  }
  std::set<std::string> missing_rules;
  for (const ir::Node& node : graph.nodes) {
    std::vector<const ir::TypeInfo*> input_types;
    std::vector<const Tensor*> constant_inputs;
    for (const auto& in : node.inputs) {
      auto it = result.all.find(in);
      input_types.push_back(!in.empty() && it != result.all.end() ? &it->second : nullptr);
      auto c = constants.find(in);
      constant_inputs.push_back(c != constants.end() ? c->second : nullptr);
    }
    auto op = opsets.find(node.domain);
    const OpRule* rule = op == opsets.end() ? nullptr : OpRuleRegistry::global().find(node.domain, node.op_type, op->second);
    InferenceContext ctx(node, op == opsets.end() ? 0 : op->second, std::move(input_types), std::move(constant_inputs));
    if (rule) {
      Status st = guarded("static rule", [&] { return rule->infer(ctx); });
      if (!st.ok()) result.warnings.push_back("node " + node.label() + ": " + st.to_string());
    } else {
      missing_rules.insert((node.domain.empty() ? "" : node.domain + ":") + node.op_type);
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const std::string& name = node.outputs[i];
      if (name.empty()) continue;
      const ir::TypeInfo& t = ctx.output_types()[i];
      if (t.kind != ir::TypeInfo::Kind::kUnknown) result.inferred[name] = t;
      auto d = declared.find(name);
      result.all[name] = d == declared.end() ? t : merge(t, d->second);
    }
    if (node.op_type == "Constant" && node.domain.empty() && !node.outputs.empty()) {
      if (const ir::Attribute* a = node.attribute("value"); a && a->t.defined()) constants[node.outputs[0]] = &a->t;
    }
  }
  result.ops_without_rule.assign(missing_rules.begin(), missing_rules.end());
  return result;
}

bool value_fits_type(const ir::TypeInfo& expected, DataType actual_type, const Shape& actual_shape, std::string* why) {
  if (expected.kind != ir::TypeInfo::Kind::kTensor) return true;
  if (expected.elem_type != DataType::kUndefined && expected.elem_type != actual_type) {
    if (why) *why = std::string("element type ") + data_type_name(actual_type) + ", static " + data_type_name(expected.elem_type);
    return false;
  }
  if (!expected.shape.has_rank) return true;
  if (expected.shape.dims.size() != actual_shape.size()) {
    if (why) *why = "shape " + shape_to_string(actual_shape) + ", static " + expected.shape.to_string();
    return false;
  }
  for (size_t d = 0; d < actual_shape.size(); ++d) {
    const auto& dim = expected.shape.dims[d];
    if (dim.value && *dim.value != actual_shape[d]) {
      if (why) *why = "shape " + shape_to_string(actual_shape) + ", static " + expected.shape.to_string();
      return false;
    }
  }
  return true;
}

}  // namespace onyx::ops
