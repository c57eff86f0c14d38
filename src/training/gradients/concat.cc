// Concat along `axis`: each input's gradient is its slice of dY, cut with Split at the inputs'
// sizes along the axis (read at run time).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status concat_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const ir::Attribute* a = ctx.node.attribute("axis");
  if (!a) return invalid_argument("Concat without axis");
  int64_t axis = a->i;
  if (axis < 0) {
    const SymbolicShape& y = e.type_of(ctx.output(0)).shape;
    if (!y.has_rank) return not_implemented("Concat's gradient with a negative axis needs the rank known statically");
    axis += int64_t(y.dims.size());
  }
  std::vector<std::string> sizes;
  for (const auto& in : ctx.node.inputs) sizes.push_back(e.op("Gather", {e.op("Shape", {in}), e.int64s({axis})}));
  const std::string split = e.op("Concat", sizes, {{"axis", GradientEmitter::int_attr("axis", 0)}});
  std::vector<std::string> parts;
  if (e.opset() >= 13) {
    parts = e.node("Split", {dy, split}, {{"axis", GradientEmitter::int_attr("axis", axis)}}, ctx.node.inputs.size());
  } else {
    return not_implemented("Concat's gradient before opset 13 (Split takes its sizes as an attribute there)");
  }
  for (size_t i = 0; i < ctx.node.inputs.size(); ++i)
    if (ctx.needs_grad[i]) ctx.input_grads[i] = parts[i];
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Concat", concat_gradient);
}  // namespace onyx::training
