// ai.onnx.ml CastMap: Y [1, N] of cast_to's type; N = max_map for SPARSE, the map's size
// (unknown here) for DENSE.
#include "ops/ml_shape.h"

namespace onyx::ops {
namespace {
Status infer_cast_map(InferenceContext& ctx) {
  const std::string to = ctx.attr_string("cast_to", "TO_FLOAT");
  const DataType type = to == "TO_FLOAT"    ? DataType::kFloat
                        : to == "TO_STRING" ? DataType::kString
                        : to == "TO_INT64"  ? DataType::kInt64
                                            : DataType::kUndefined;
  Dim width;
  if (ctx.attr_string("map_form", "DENSE") == "SPARSE") width.value = ctx.attr_int("max_map", 1);
  ctx.set_output(0, type, SymbolicShape{true, {known_dim(1), width}});
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "CastMap", 1, 1000, infer_cast_map);
}  // namespace onyx::ops
