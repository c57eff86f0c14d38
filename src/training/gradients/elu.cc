// Elu (alpha, default 1): dX = dY where X > 0, else dY * alpha * exp(X).
#include "training/gradients/elu_family.h"

namespace onyx::training {
namespace {

Status elu_gradient(GradientContext& ctx) {
  const ir::Attribute* a = ctx.node.attribute("alpha");
  return elu_family_gradient(ctx, 1.0, a ? a->f : 1.0, 1.0);
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Elu", elu_gradient);
}  // namespace onyx::training
