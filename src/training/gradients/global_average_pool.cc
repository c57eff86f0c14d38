// GlobalAveragePool: dX = dY spread over each channel's positions, divided by their count
// (|Y| / |X|, known at run time).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status global_average_pool_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const std::string& x = ctx.input(0);
  const int64_t t = int64_t(ctx.elem_type(x));
  auto as_t = [&](const std::string& v) { return e.op("Cast", {v}, {{"to", GradientEmitter::int_attr("to", t)}}); };
  const std::string share = e.op("Div", {as_t(e.op("Size", {ctx.output(0)})), as_t(e.op("Size", {x}))});
  ctx.input_grads[0] = e.op("Mul", {e.op("Expand", {ctx.output_grads[0], e.op("Shape", {x})}), share});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "GlobalAveragePool", global_average_pool_gradient);
}  // namespace onyx::training
