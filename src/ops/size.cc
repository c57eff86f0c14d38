// Size: an int64 scalar.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_size(InferenceContext& ctx) {
  ctx.set_output(0, DataType::kInt64, known_shape({}));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Size", 1, 1000, infer_size);

}  // namespace onyx::ops
