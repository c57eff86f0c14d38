// GRU: Y, Y_h in X's element type, shaped per layout (rnn_shape.h); 3 gates.
#include "ops/rnn_shape.h"

namespace onyx::ops {
namespace {
Status infer_gru(InferenceContext& ctx) { return infer_recurrent(ctx, 3); }
}  // namespace
ONYX_REGISTER_OP_RULE("", "GRU", 1, 1000, infer_gru);
}  // namespace onyx::ops
