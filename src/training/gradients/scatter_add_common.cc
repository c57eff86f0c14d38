#include "training/gradients/scatter_add_common.h"

namespace onyx::training {

Result<std::string> scatter_add_gradient(GradientContext& ctx, const std::string& dy, const std::string& indices,
                                         int64_t axis) {
  GradientEmitter& e = ctx.emit;
  if (e.opset() < 16)
    return not_implemented(ctx.node.op_type, "'s gradient needs ScatterElements with reduction (opset 16 on); the "
                           "model's opset is ", e.opset());
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ctx.elem_type(ctx.input(0)), 0.0));
  const std::string zeros = e.op("Expand", {zero, e.op("Shape", {ctx.input(0)})});
  return e.op("ScatterElements", {zeros, indices, dy},
              {{"axis", GradientEmitter::int_attr("axis", axis)}, {"reduction", GradientEmitter::string_attr("reduction", "add")}});
}

}  // namespace onyx::training
