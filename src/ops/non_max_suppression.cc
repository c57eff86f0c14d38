// NonMaxSuppression: selected_indices, int64 (num_selected, 3); num_selected is data-dependent.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_non_max_suppression(InferenceContext& ctx) {
  SymbolicShape out = unknown_dims(2);
  out.dims[1].value = 3;
  ctx.set_output(0, DataType::kInt64, std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "NonMaxSuppression", 10, 1000, infer_non_max_suppression);
}  // namespace onyx::ops
