// com.microsoft Attention: output [B, S, hv] of input's element type, with hv from
// qkv_hidden_sizes or a third of the weights' width; the present output's shape is not derived.
#include "ops/attention_shape.h"

namespace onyx::ops {
namespace {

Status infer_attention(InferenceContext& ctx) {
  const std::vector<int64_t> sizes = ctx.attr_ints("qkv_hidden_sizes");
  return set_attention_outputs(ctx, sizes.size() == 3 ? std::optional<int64_t>(sizes[2]) : third_of_width(ctx, 1),
                               ctx.input_elem_type(0));
}

}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "Attention", 1, 1000, infer_attention);
}  // namespace onyx::ops
