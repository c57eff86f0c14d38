// RNNGrad (ai.onyx.training): inputs (X, W, R, B, sequence_lens, initial_h, dY, dY_h), outputs
// the gradients of X, W, R, B and initial_h, each with its forward input's type and shape
// (src/kernels/cpu/rnn_grad.cc).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer(InferenceContext& ctx) {
  const int source[] = {0, 1, 2, 3, 5};
  for (int k = 0; k < ctx.num_outputs() && k < 5; ++k)
    ctx.set_output(k, ctx.input_elem_type(0), ctx.has_input(source[k]) ? ctx.input_shape(source[k]) : SymbolicShape{});
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "RNNGrad", 1, 1000, infer);

}  // namespace onyx::ops
