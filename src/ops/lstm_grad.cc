// LSTMGrad (ai.onyx.training): inputs (X, W, R, B, sequence_lens, initial_h, initial_c, P, dY,
// dY_h, dY_c), outputs the gradients of X, W, R, B, initial_h, initial_c and P, each with its
// forward input's type and shape (src/kernels/cpu/lstm_grad.cc; rnn_shape.h).
#include "ops/rnn_shape.h"

namespace onyx::ops {
namespace {

Status infer_lstm_grad(InferenceContext& ctx) { return infer_recurrent_gradient(ctx, {0, 1, 2, 3, 5, 6, 7}); }

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "LSTMGrad", 1, 1000, infer_lstm_grad);

}  // namespace onyx::ops
