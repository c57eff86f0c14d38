// GlobalMaxPool: dY goes to the first position holding each channel's maximum (PyTorch's
// adaptive max pool picks one index, the first, so ties do not share it): X seen as
// [N, C, spatial], ArgMax along it, dY scattered there into zeros.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status global_max_pool_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  if (e.opset() < 11) return not_implemented("GlobalMaxPool's gradient before opset 11 (ScatterElements)");
  const std::string& x = ctx.input(0);
  const std::string flat = e.op("Reshape", {x, e.int64s({0, 0, -1})});
  const std::string where = e.op("ArgMax", {flat}, {{"axis", GradientEmitter::int_attr("axis", 2)},
                                                    {"keepdims", GradientEmitter::int_attr("keepdims", 1)}});
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ctx.elem_type(x), 0.0));
  const std::string zeros = e.op("Expand", {zero, e.op("Shape", {flat})});
  const std::string dy = e.op("Reshape", {ctx.output_grads[0], e.int64s({0, 0, 1})});
  const std::string scattered = e.op("ScatterElements", {zeros, where, dy}, {{"axis", GradientEmitter::int_attr("axis", 2)}});
  ctx.input_grads[0] = e.op("Reshape", {scattered, e.op("Shape", {x})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "GlobalMaxPool", global_max_pool_gradient);
}  // namespace onyx::training
