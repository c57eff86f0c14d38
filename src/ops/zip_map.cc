// ai.onnx.ml ZipMap: a sequence of map(int64 | string, float).
#include "ops/ml_shape.h"
#include "ops/type_merge.h"

namespace onyx::ops {
namespace {
Status infer_zip_map(InferenceContext& ctx) {
  ir::TypeInfo value;
  value.kind = ir::TypeInfo::Kind::kTensor;
  value.elem_type = DataType::kFloat;
  ir::TypeInfo map;
  map.kind = ir::TypeInfo::Kind::kMap;
  map.elem_type = ml_label_type(ctx, "classlabels_int64s", "classlabels_strings");
  map.inner = std::make_shared<ir::TypeInfo>(value);
  ctx.set_output_type(0, sequence_of(map));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "ZipMap", 1, 1000, infer_zip_map);
}  // namespace onyx::ops
