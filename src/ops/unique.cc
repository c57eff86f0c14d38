// Unique: Y has X's element type; without 'axis' it is 1-D of unknown length, with it X's
// dims with the axis dim unknown. indices and counts are int64 [?] (one per unique item);
// inverse_indices is int64 [numel(X)] without axis, [X.shape[axis]] with it.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_unique(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  SymbolicShape y = unknown_dims(1);
  Dim items;  // the number of items compared: inverse_indices' length
  if (ctx.has_attr("axis")) {
    y = in;
    if (in.has_rank) {
      int64_t axis = ctx.attr_int("axis", 0);
      const int64_t rank = int64_t(in.dims.size());
      if (!normalize_axis(axis, rank)) return invalid_model("Unique: axis ", axis, " is out of range for rank ", rank);
      items = in.dims[size_t(axis)];
      y.dims[size_t(axis)] = Dim{};
    }
  } else if (in.has_rank) {
    items = dim_product(in.dims, 0, in.dims.size());
  }
  ctx.set_output(0, elem, std::move(y));
  ctx.set_output(1, DataType::kInt64, unknown_dims(1));
  ctx.set_output(2, DataType::kInt64, SymbolicShape{true, {items}});
  ctx.set_output(3, DataType::kInt64, unknown_dims(1));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Unique", 1, 1000, infer_unique);

}  // namespace onyx::ops
