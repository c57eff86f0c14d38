// PythonOpGrad (ai.onyx.torch): the gradients of a PythonOp's tensor inputs, computed by the
// custom torch.autograd.Function's own backward (python/onyx/training/ortmodule/
// _custom_function.py). Input 0 is the PythonOp's context (its output 0); inputs 1.. are the
// gradients of its outputs 1.. (omitted where none flows). Output k is the gradient of the
// forward input input_indices[k], with the element type output_types[k] and rank
// output_ranks[k] that the gradient rule copied from that input; dims unknown statically.
#include "ops/python_op_shape.h"

namespace onyx::ops {
namespace {

Status infer_python_op_grad(InferenceContext& ctx) {
  set_recorded_outputs(ctx, 0);
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.torch", "PythonOpGrad", 1, 1000, infer_python_op_grad);

}  // namespace onyx::ops
