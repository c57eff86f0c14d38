// ThresholdedRelu (alpha, default 1): dX = dY where X > alpha, else 0.
#include "training/gradients/unary_common.h"

namespace onyx::training {
namespace {

Status thresholded_relu_gradient(GradientContext& ctx) {
  const ir::Attribute* a = ctx.node.attribute("alpha");
  const double threshold = a ? a->f : 1.0;
  return unary_gradient(ctx, [threshold](GradientEmitter& e, const std::string& x, const std::string& /*y*/,
                                         const std::string& dy, DataType t) -> Result<std::string> {
    ONYX_ASSIGN_OR_RETURN(std::string alpha, e.scalar(t, threshold));
    ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(t, 0.0));
    return e.op("Where", {e.op("Greater", {x, alpha}), dy, zero});
  });
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ThresholdedRelu", thresholded_relu_gradient);
}  // namespace onyx::training
