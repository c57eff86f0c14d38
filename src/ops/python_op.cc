// PythonOp (ai.onyx.torch): a custom torch.autograd.Function that ORTModule's export kept as
// one node (python/onyx/training/ortmodule/_custom_function.py), run by calling back into
// Python. Inputs: the Function's tensor arguments. Output 0 is an int64 scalar naming the
// call's saved context (0 when there is none: no gradient will be asked for); outputs 1.. are
// the Function's outputs, whose element types and ranks the export recorded in the attributes
// output_types (ONNX element type numbers) and output_ranks. Their dims are unknown statically.
#include "ops/python_op_shape.h"

namespace onyx::ops {
namespace {

Status infer_python_op(InferenceContext& ctx) {
  ctx.set_output(0, DataType::kInt64, unknown_dims(0));
  set_recorded_outputs(ctx, 1);
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.torch", "PythonOp", 1, 1000, infer_python_op);

}  // namespace onyx::ops
