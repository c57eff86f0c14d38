#include "ops/control_flow_shape.h"

#include "ops/type_merge.h"

namespace onyx::ops {

ir::TypeInfo carried_type(const ir::TypeInfo& body_output, const ir::TypeInfo* initial) {
  return initial ? common_type(body_output, *initial) : body_output;
}

ir::TypeInfo stacked_type(const ir::TypeInfo& body_output, int64_t axis, Dim len) {
  if (body_output.kind != ir::TypeInfo::Kind::kTensor) return {};
  ir::TypeInfo t = body_output;
  if (t.shape.has_rank) {
    if (axis < 0 || axis > int64_t(t.shape.dims.size())) {
      t.shape = {};
    } else {
      t.shape.dims.insert(t.shape.dims.begin() + axis, std::move(len));
    }
  }
  return t;
}

}  // namespace onyx::ops
