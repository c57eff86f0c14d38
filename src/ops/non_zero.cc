// NonZero: int64 [rank, ?], one column per nonzero element (a scalar counts as rank 1).
#include <algorithm>

#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_non_zero(InferenceContext& ctx) {
  const SymbolicShape in = ctx.input_shape(0);
  SymbolicShape out = unknown_dims(2);
  if (in.has_rank) out.dims[0] = Dim{std::max<int64_t>(int64_t(in.dims.size()), 1), ""};
  ctx.set_output(0, DataType::kInt64, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "NonZero", 1, 1000, infer_non_zero);

}  // namespace onyx::ops
