// LSTM: Y, Y_h, Y_c in X's element type, shaped per layout (rnn_shape.h); 4 gates.
#include "ops/rnn_shape.h"

namespace onyx::ops {
namespace {
Status infer_lstm(InferenceContext& ctx) { return infer_recurrent(ctx, 4); }
}  // namespace
ONYX_REGISTER_OP_RULE("", "LSTM", 1, 1000, infer_lstm);
}  // namespace onyx::ops
