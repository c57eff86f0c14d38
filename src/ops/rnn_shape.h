// Static outputs of the recurrent ops RNN, GRU and LSTM. Inputs X, W (dirs, gates * hidden,
// input), R (dirs, gates * hidden, hidden), ...; all outputs have X's element type:
//   layout 0: X (seq, batch, input), Y (seq, dirs, batch, hidden), Y_h / Y_c (dirs, batch, hidden)
//   layout 1: X (batch, seq, input), Y (batch, seq, dirs, hidden), Y_h / Y_c (batch, dirs, hidden)
// hidden is the hidden_size attribute, else R's last dim, else W's dim 1 / gates.
#pragma once
#include <vector>

#include "ops/op_rule.h"

namespace onyx::ops {

Status infer_recurrent(InferenceContext& ctx, int64_t gates);

// Static outputs of training's LSTMGrad, GRUGrad and RNNGrad: output k is the gradient of input
// sources[k], with X's element type and that input's shape (unknown when it is omitted).
Status infer_recurrent_gradient(InferenceContext& ctx, const std::vector<int>& sources);

}  // namespace onyx::ops
