// Sign: piecewise constant, so its input gets no gradient (zero, as in PyTorch).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status sign_gradient(GradientContext&) { return Status::Ok(); }

}  // namespace
ONYX_REGISTER_GRADIENT("", "Sign", sign_gradient);
}  // namespace onyx::training
