// Shape: int64 1-D of length end - start over the input's rank (start/end attributes from
// opset 15, negative counting from the end, clamped to [0, rank]); length unknown without a
// known rank.
#include <algorithm>

#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_shape(InferenceContext& ctx) {
  const SymbolicShape in = ctx.input_shape(0);
  if (!in.has_rank) {
    ctx.set_output(0, DataType::kInt64, unknown_dims(1));
    return Status::Ok();
  }
  const int64_t rank = int64_t(in.dims.size());
  int64_t start = 0, end = rank;
  if (ctx.opset() >= 15) {
    start = ctx.attr_int("start", 0);
    if (start < 0) start += rank;
    if (ctx.has_attr("end")) {
      end = ctx.attr_int("end", 0);
      if (end < 0) end += rank;
    }
  }
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  ctx.set_output(0, DataType::kInt64, known_shape({end - start}));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Shape", 1, 1000, infer_shape);

}  // namespace onyx::ops
