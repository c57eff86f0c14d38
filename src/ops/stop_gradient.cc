// StopGradient (ai.onyx.training): its input, unchanged; the gradient builder sends no gradient
// through it (src/training/gradients/stop_gradient.cc). ORTModule's export uses it where PyTorch
// drops gradient contributions (an embedding's padding_idx lookups); make_module_graphs turns it
// into Identity once the gradients are built, so no session runs it.
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("ai.onyx.training", "StopGradient", 1, 1000, infer_same_as_input0);
}  // namespace onyx::ops
