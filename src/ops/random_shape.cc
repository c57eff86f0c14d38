#include "ops/random_shape.h"

namespace onyx::ops {
namespace {

// The 'dtype' attribute as a tensor element type; `fallback` when absent, unknown when invalid.
DataType dtype_attr(const InferenceContext& ctx, DataType fallback) {
  if (!ctx.has_attr("dtype")) return fallback;
  const int64_t code = ctx.attr_int("dtype", 0);
  if (code <= 0 || code > int64_t(DataType::kBFloat16) || !is_valid_data_type(int(code))) return DataType::kUndefined;
  return DataType(int(code));
}

}  // namespace

Status infer_random(InferenceContext& ctx) {
  const DataType elem = dtype_attr(ctx, DataType::kFloat);
  if (!ctx.has_attr("shape")) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const std::vector<int64_t> dims = ctx.attr_ints("shape");
  for (int64_t d : dims) {
    if (d < 0) {
      ctx.set_output(0, elem, {});
      return invalid_model("shape has a negative dim ", d);
    }
  }
  ctx.set_output(0, elem, known_shape(dims));
  return Status::Ok();
}

Status infer_random_like(InferenceContext& ctx) {
  ctx.set_output(0, dtype_attr(ctx, ctx.input_elem_type(0)), ctx.input_shape(0));
  return Status::Ok();
}

}  // namespace onyx::ops
