#include "ops/signal_shape.h"

namespace onyx::ops {

std::optional<int64_t> constant_int_scalar(const InferenceContext& ctx, int i) {
  if (!ctx.has_input(i)) return std::nullopt;
  const Tensor* t = ctx.constant_input(i);
  if (!t || t->numel() != 1 || !is_integer_type(t->dtype())) return std::nullopt;
  return t->get_int64(0);
}

DataType output_datatype(const InferenceContext& ctx) {
  const int64_t code = ctx.attr_int("output_datatype", int64_t(DataType::kFloat));
  return is_valid_data_type(int(code)) ? DataType(code) : DataType::kUndefined;
}

Status infer_window(InferenceContext& ctx) {
  SymbolicShape shape = unknown_dims(1);
  if (auto size = constant_int_scalar(ctx, 0); size && *size >= 0) shape.dims[0].value = *size;
  ctx.set_output(0, output_datatype(ctx), std::move(shape));
  return Status::Ok();
}

}  // namespace onyx::ops
