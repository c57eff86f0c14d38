// Selu (alpha, gamma): dX = gamma * dY where X > 0, else gamma * alpha * exp(X) * dY.
#include "training/gradients/elu_family.h"

namespace onyx::training {
namespace {

Status selu_gradient(GradientContext& ctx) {
  const ir::Attribute* a = ctx.node.attribute("alpha");
  const ir::Attribute* g = ctx.node.attribute("gamma");
  return elu_family_gradient(ctx, g ? g->f : 1.05070102214813232421875, a ? a->f : 1.67326319217681884765625, 1.0);
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Selu", selu_gradient);
}  // namespace onyx::training
