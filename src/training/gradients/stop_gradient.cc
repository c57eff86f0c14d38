// StopGradient (ai.onyx.training): no gradient reaches its input (src/ops/stop_gradient.cc).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status stop_gradient(GradientContext&) { return Status::Ok(); }

}  // namespace
ONYX_REGISTER_GRADIENT("ai.onyx.training", "StopGradient", stop_gradient);
}  // namespace onyx::training
