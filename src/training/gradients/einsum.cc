// Einsum with explicit letters (no ellipsis; no letter twice within one operand): the gradient
// of operand i is itself an Einsum of dY and the other operands,
//   dX_i = Einsum("<output>,<other terms>-><term i without its lonely letters>")
// where a lonely letter appears in term i only (summed away within X_i): its dims come back
// by Unsqueeze and Expand to X_i's shape, as a sum's gradient does. The implicit form (no "->")
// has the output numpy gives it: the letters appearing once, sorted.
#include <algorithm>
#include <map>

#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

std::string without_spaces(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

Status einsum_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const ir::Attribute* eq_attr = ctx.node.attribute("equation");
  if (!eq_attr) return invalid_argument("Einsum without an equation");
  const std::string eq = without_spaces(eq_attr->s);
  if (eq.find("...") != std::string::npos) return not_implemented("Einsum's gradient with an ellipsis ('", eq, "')");
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t at = 0;;) {
    const size_t comma = lhs.find(',', at);
    terms.push_back(lhs.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (terms.size() != ctx.node.inputs.size())
    return invalid_argument("Einsum equation '", eq, "' has ", terms.size(), " terms for ", ctx.node.inputs.size(), " inputs");
  std::map<char, int> count;
  for (const std::string& t : terms)
    for (char c : t) {
      if (!std::isalpha(static_cast<unsigned char>(c))) return invalid_argument("Einsum equation '", eq, "'");
      ++count[c];
    }
  std::string output;
  if (arrow != std::string::npos) {
    output = eq.substr(arrow + 2);
  } else {
    for (const auto& [c, n] : count)
      if (n == 1) output += c;
  }
  for (const std::string& t : terms)
    for (char c : t)
      if (std::count(t.begin(), t.end(), c) > 1)
        return not_implemented("Einsum's gradient with a letter repeated within one operand ('", eq, "')");
  for (size_t i = 0; i < terms.size(); ++i) {
    if (!ctx.needs_grad[i]) continue;
    const std::string& term = terms[i];
    std::string kept;
    std::vector<int64_t> lonely_at;
    std::vector<std::string> inputs{dy};
    std::string others;
    for (size_t j = 0; j < terms.size(); ++j)
      if (j != i) {
        others += "," + terms[j];
        inputs.push_back(ctx.node.inputs[j]);
      }
    for (size_t k = 0; k < term.size(); ++k) {
      const char c = term[k];
      const bool elsewhere = output.find(c) != std::string::npos || others.find(c) != std::string::npos;
      if (elsewhere) kept += c;
      else lonely_at.push_back(int64_t(k));
    }
    std::string g = e.op("Einsum", inputs, {{"equation", GradientEmitter::string_attr("equation", output + others + "->" + kept)}});
    if (!lonely_at.empty()) {
      g = e.unsqueeze(g, lonely_at);
      g = e.op("Expand", {g, e.op("Shape", {ctx.node.inputs[i]})});
    }
    ctx.input_grads[i] = g;
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Einsum", einsum_gradient);
}  // namespace onyx::training
