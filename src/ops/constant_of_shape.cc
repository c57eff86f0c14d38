// ConstantOfShape: the 'value' attribute's element type (default float32); the shape is the
// constant input 0's values, or of known rank when only input 0's length is known.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_constant_of_shape(InferenceContext& ctx) {
  DataType elem = DataType::kFloat;
  if (const ir::Attribute* a = ctx.node().attribute("value"); a && a->t.defined()) elem = a->t.dtype();
  if (std::optional<std::vector<int64_t>> shape = constant_ints(ctx, 0)) {
    for (int64_t d : *shape)
      if (d < 0) return invalid_model("ConstantOfShape: negative dim ", d);
    ctx.set_output(0, elem, known_shape(*shape));
  } else {
    std::optional<int64_t> n = known_length(ctx, 0);
    ctx.set_output(0, elem, n ? unknown_dims(*n) : SymbolicShape{});
  }
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "ConstantOfShape", 1, 1000, infer_constant_of_shape);

}  // namespace onyx::ops
