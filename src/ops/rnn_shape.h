// Static outputs of the recurrent ops RNN, GRU and LSTM. Inputs X, W (dirs, gates * hidden,
// input), R (dirs, gates * hidden, hidden), ...; all outputs have X's element type:
//   layout 0: X (seq, batch, input), Y (seq, dirs, batch, hidden), Y_h / Y_c (dirs, batch, hidden)
//   layout 1: X (batch, seq, input), Y (batch, seq, dirs, hidden), Y_h / Y_c (batch, dirs, hidden)
// hidden is the hidden_size attribute, else R's last dim, else W's dim 1 / gates.
#pragma once
#include "ops/op_rule.h"

namespace onyx::ops {

Status infer_recurrent(InferenceContext& ctx, int64_t gates);

}  // namespace onyx::ops
