#include "training/gradients/select_common.h"

namespace onyx::training {

Status select_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const size_t n = ctx.node.inputs.size();
  if (n == 1) {
    if (ctx.needs_grad[0]) ctx.input_grads[0] = dy;
    return Status::Ok();
  }
  const DataType t = ctx.elem_type(ctx.output(0));
  const ir::Attribute to = GradientEmitter::int_attr("to", int64_t(t));
  std::vector<std::string> chosen;
  for (size_t i = 0; i < n; ++i)
    chosen.push_back(e.op("Cast", {e.op("Equal", {ctx.input(i), ctx.output(0)})}, {{"to", to}}));
  const std::string ties = e.op("Sum", chosen);
  const std::string share = e.op("Div", {dy, ties});
  for (size_t i = 0; i < n; ++i) {
    if (!ctx.needs_grad[i]) continue;
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[i],
                          e.sum_to_shape_of(e.op("Mul", {share, chosen[i]}), ctx.output(0), ctx.input(i)));
  }
  return Status::Ok();
}

}  // namespace onyx::training
