// HammingWindow: a 1-D tensor of `size` values in output_datatype (signal_shape.h).
#include "ops/signal_shape.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "HammingWindow", 17, 1000, infer_window);
}  // namespace onyx::ops
