// What the gradient rules of LSTM, GRU and RNN share: their common refusals and the emission of
// the one ai.onyx.training gradient node (LSTMGrad, GRUGrad, RNNGrad) that computes them all.
#pragma once
#include <vector>

#include "training/gradient_rule.h"

namespace onyx::training {

// NOT_IMPLEMENTED naming `op` for layout 1 or a clip (the gradient kernels take neither).
Status refuse_layout_and_clip(const ir::Node& n, const char* op);

// Emits `grad_op` over the node's first `forward_inputs` inputs ("" where omitted) and the
// gradients of its first `outputs` outputs ("" where none flows), with the node's attributes;
// output k of it is the gradient of input sources[k], handed to those that need one.
void emit_recurrent_gradient(GradientContext& ctx, const char* grad_op, size_t forward_inputs, size_t outputs,
                             const std::vector<size_t>& sources);

}  // namespace onyx::training
