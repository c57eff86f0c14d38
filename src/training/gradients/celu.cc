// Celu (alpha, default 1): dX = dY where X > 0, else dY * exp(X / alpha).
#include "training/gradients/elu_family.h"

namespace onyx::training {
namespace {

Status celu_gradient(GradientContext& ctx) {
  const ir::Attribute* a = ctx.node.attribute("alpha");
  const double alpha = a ? a->f : 1.0;
  if (alpha == 0) return invalid_argument("Celu alpha must not be 0");
  return elu_family_gradient(ctx, 1.0, alpha, 1.0 / alpha);
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Celu", celu_gradient);
}  // namespace onyx::training
