// RNNGrad (ai.onyx.training): inputs (X, W, R, B, sequence_lens, initial_h, dY, dY_h), outputs the
// gradients of X, W, R, B and initial_h, each with its forward input's type and shape
// (src/kernels/cpu/rnn_grad.cc; rnn_shape.h).
#include "ops/rnn_shape.h"

namespace onyx::ops {
namespace {

Status infer_rnn_grad(InferenceContext& ctx) { return infer_recurrent_gradient(ctx, {0, 1, 2, 3, 5}); }

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "RNNGrad", 1, 1000, infer_rnn_grad);

}  // namespace onyx::ops
