// RNN: Y, Y_h in X's element type, shaped per layout (rnn_shape.h); 1 gate.
#include "ops/rnn_shape.h"

namespace onyx::ops {
namespace {
Status infer_rnn(InferenceContext& ctx) { return infer_recurrent(ctx, 1); }
}  // namespace
ONYX_REGISTER_OP_RULE("", "RNN", 1, 1000, infer_rnn);
}  // namespace onyx::ops
