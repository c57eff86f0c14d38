// Round: piecewise constant, so its input gets no gradient (zero, as in PyTorch).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status round_gradient(GradientContext&) { return Status::Ok(); }

}  // namespace
ONYX_REGISTER_GRADIENT("", "Round", round_gradient);
}  // namespace onyx::training
