// Expand: input 0's element type; input 0's shape broadcast with the constant shape input 1.
// A non-constant shape of known length n gives rank max(rank, n) with unknown dims.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_expand(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  std::optional<std::vector<int64_t>> shape = constant_ints(ctx, 1);
  if (!shape) {
    std::optional<int64_t> n = known_length(ctx, 1);
    if (in.has_rank && n) ctx.set_output(0, elem, unknown_dims(std::max(int64_t(in.dims.size()), *n)));
    else ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  auto out = broadcast_symbolic({in, known_shape(*shape)});
  if (!out.ok()) {
    ctx.set_output(0, elem, {});
    return out.take_status();
  }
  ctx.set_output(0, elem, std::move(out).value());
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Expand", 1, 1000, infer_expand);

}  // namespace onyx::ops
