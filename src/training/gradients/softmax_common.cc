#include "training/gradients/softmax_common.h"

namespace onyx::training {

Result<int64_t> softmax_axis(const GradientContext& ctx) {
  const SymbolicShape& x = ctx.emit.type_of(ctx.input(0)).shape;
  const int64_t opset = ctx.emit.opset();
  const ir::Attribute* a = ctx.node.attribute("axis");
  int64_t axis = a ? a->i : (opset >= 13 ? -1 : 1);
  if (!x.has_rank) {
    if (axis == -1 && opset >= 13) return int64_t(-1);
    return not_implemented(ctx.node.op_type, "'s gradient needs the input's rank known statically");
  }
  const int64_t rank = int64_t(x.dims.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return invalid_argument(ctx.node.op_type, " axis out of range for rank ", rank);
  if (opset < 13 && axis != rank - 1)
    return not_implemented(ctx.node.op_type, "'s gradient before opset 13 with axis ", axis,
                           " other than the last (the input is flattened to 2-D there)");
  return axis;
}

}  // namespace onyx::training
