// Shared by the Softmax and LogSoftmax rules: the axis a node normalises over, in the
// opset-13 sense (a single axis; before 13 the input was flattened to 2-D at `axis`, which is
// the same only when axis is the last dim, the only case these rules accept then).
#pragma once
#include "training/gradient_rule.h"

namespace onyx::training {

Result<int64_t> softmax_axis(const GradientContext& ctx);

}  // namespace onyx::training
