#include "ops/reduce_shape.h"

#include <optional>
#include <vector>

namespace onyx::ops {
namespace {

// The axes when known at load: the attribute, or the constant axes input.
std::optional<std::vector<int64_t>> known_axes(InferenceContext& ctx, int axes_input_since) {
  if (ctx.opset() >= axes_input_since && ctx.has_input(1)) {
    const Tensor* axes = ctx.constant_input(1);
    if (!axes) {
      // An axes input of static shape [0] is empty whatever its value.
      const SymbolicShape s = ctx.input_shape(1);
      if (s.has_rank && s.dims.size() == 1 && s.dims[0].value == 0) return std::vector<int64_t>{};
      return std::nullopt;
    }
    if (!is_integer_type(axes->dtype()) || axes->rank() > 1) return std::nullopt;
    return axes->to_int64_vector();
  }
  return ctx.attr_ints("axes");
}

// Output shape when the axes are unknown: with keepdims the input's rank, and dims that are 1
// stay 1; without, the rank drops by the axes input's length when that is known and non-zero.
SymbolicShape shape_with_unknown_axes(InferenceContext& ctx, const SymbolicShape& in, bool keepdims) {
  if (!in.has_rank) return {};
  if (keepdims) {
    SymbolicShape out = unknown_dims(int64_t(in.dims.size()));  // no dims past kMaxStaticRank
    for (size_t d = 0; d < out.dims.size(); ++d)
      if (in.dims[d].value == 1) out.dims[d].value = 1;
    return out;
  }
  const SymbolicShape axes = ctx.input_shape(1);
  if (axes.has_rank && axes.dims.size() == 1 && axes.dims[0].value && *axes.dims[0].value > 0 &&
      *axes.dims[0].value <= int64_t(in.dims.size()))
    return unknown_dims(int64_t(in.dims.size()) - *axes.dims[0].value);
  return {};
}

}  // namespace

Status infer_reduce(InferenceContext& ctx, int axes_input_since) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  const bool keepdims = ctx.attr_int("keepdims", 1) != 0;
  const std::optional<std::vector<int64_t>> axes = known_axes(ctx, axes_input_since);
  if (!axes) {
    ctx.set_output(0, elem, shape_with_unknown_axes(ctx, in, keepdims));
    return Status::Ok();
  }
  if (axes->empty()) {
    if (ctx.attr_int("noop_with_empty_axes", 0) != 0) {
      ctx.set_output(0, elem, in);
    } else if (!keepdims) {
      ctx.set_output(0, elem, known_shape({}));
    } else {
      ctx.set_output(0, elem, in.has_rank ? known_shape(std::vector<int64_t>(in.dims.size(), 1)) : SymbolicShape{});
    }
    return Status::Ok();
  }
  if (!in.has_rank) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const int64_t rank = int64_t(in.dims.size());
  std::vector<bool> reduced(in.dims.size(), false);
  for (int64_t a : *axes) {
    if (a < -rank || a >= rank) {
      ctx.set_output(0, elem, {});
      return invalid_model("reduction axis ", a, " is out of range for rank ", rank);
    }
    const size_t d = size_t(a < 0 ? a + rank : a);
    if (reduced[d]) {
      ctx.set_output(0, elem, {});
      return invalid_model("reduction axis ", a, " is repeated");
    }
    reduced[d] = true;
  }
  SymbolicShape out = known_shape({});
  for (size_t d = 0; d < in.dims.size(); ++d) {
    if (!reduced[d]) out.dims.push_back(in.dims[d]);
    else if (keepdims) out.dims.push_back(Dim{1, ""});
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

Status infer_arg_reduce(InferenceContext& ctx) {
  const SymbolicShape in = ctx.input_shape(0);
  if (!in.has_rank) {
    ctx.set_output(0, DataType::kInt64, {});
    return Status::Ok();
  }
  const int64_t rank = int64_t(in.dims.size());
  const int64_t axis = ctx.attr_int("axis", 0);
  if (rank == 0 || axis < -rank || axis >= rank) {
    ctx.set_output(0, DataType::kInt64, {});
    return invalid_model("axis ", axis, " is out of range for rank ", rank);
  }
  const bool keepdims = ctx.attr_int("keepdims", 1) != 0;
  SymbolicShape out = in;
  const size_t d = size_t(axis < 0 ? axis + rank : axis);
  if (keepdims) out.dims[d] = Dim{1, ""};
  else out.dims.erase(out.dims.begin() + std::ptrdiff_t(d));
  ctx.set_output(0, DataType::kInt64, std::move(out));
  return Status::Ok();
}

}  // namespace onyx::ops
