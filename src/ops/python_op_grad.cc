// PythonOpGrad (ai.onyx.torch): the gradients of a PythonOp's tensor inputs, computed by the
// custom torch.autograd.Function's own backward (python/onyx/training/ortmodule/
// _custom_function.py). Input 0 is the PythonOp's context (its output 0); inputs 1.. are the
// gradients of its outputs 1.. (omitted where none flows). Output k is the gradient of the
// forward input input_indices[k], with the element type output_types[k] and rank
// output_ranks[k] that the gradient rule copied from that input; dims unknown statically.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer(InferenceContext& ctx) {
  const std::vector<int64_t> types = ctx.attr_ints("output_types");
  const std::vector<int64_t> ranks = ctx.attr_ints("output_ranks");
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const size_t k = size_t(i);
    const DataType elem = k < types.size() && is_valid_data_type(int(types[k])) ? DataType(types[k])
                                                                                 : DataType::kUndefined;
    const bool ranked = k < ranks.size() && ranks[k] >= 0 && ranks[k] <= 64;
    ctx.set_output(i, elem, ranked ? unknown_dims(ranks[k]) : SymbolicShape{});
  }
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.torch", "PythonOpGrad", 1, 1000, infer);

}  // namespace onyx::ops
