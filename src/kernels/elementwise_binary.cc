#include "kernels/elementwise_binary.h"

namespace onyx {

Status BinaryBroadcast::parse(const KernelInfo& info) {
  legacy_ = info.opset() < 7;
  if (!legacy_) return Status::Ok();
  const int64_t broadcast = info.attr_int("broadcast", 0);
  if (broadcast != 0 && broadcast != 1)
    return invalid_model("attribute 'broadcast' must be 0 or 1, got ", broadcast);
  broadcast_ = broadcast == 1;
  has_axis_ = info.has_attr("axis");
  axis_ = info.attr_int("axis", 0);
  return Status::Ok();
}

Status BinaryBroadcast::resolve(const Shape& a, const Shape& b, Shape& out, Shape& b_view) const {
  if (!legacy_) {
    ONYX_ASSIGN_OR_RETURN(out, broadcast_shapes({a, b}));
    b_view = b;
    return Status::Ok();
  }
  if (!broadcast_) {
    if (a != b)
      return invalid_argument("shapes ", shape_to_string(a), " and ", shape_to_string(b),
                              " must be equal when broadcast=0");
    out = a;
    b_view = b;
    return Status::Ok();
  }
  const int64_t rank_a = int64_t(a.size());
  const int64_t rank_b = int64_t(b.size());
  int64_t axis = has_axis_ ? axis_ : rank_a - rank_b;
  if (has_axis_ && axis < 0) axis += rank_a;
  // axis comes from the model and may be anything: compare without forming axis + rank_b.
  if (rank_b > rank_a || axis < 0 || axis > rank_a - rank_b)
    return invalid_argument("cannot broadcast ", shape_to_string(b), " onto ", shape_to_string(a),
                            " at axis ", has_axis_ ? axis_ : axis);
  b_view.assign(size_t(rank_a), 1);
  for (int64_t i = 0; i < rank_b; ++i) {
    const int64_t d = b[size_t(i)];
    if (d != 1 && d != a[size_t(axis + i)])
      return invalid_argument("cannot broadcast ", shape_to_string(b), " onto ", shape_to_string(a),
                              " at axis ", axis);
    b_view[size_t(axis + i)] = d;
  }
  out = a;
  return Status::Ok();
}

Status check_tensor_inputs(const KernelContext& ctx, int n, int optional_from) {
  if (ctx.num_inputs() < (optional_from >= 0 ? std::min(n, optional_from) : n))
    return invalid_argument("expected ", n, " inputs, got ", ctx.num_inputs());
  for (int i = 0; i < n; ++i) {
    if (!ctx.has_input(i)) {
      if (optional_from >= 0 && i >= optional_from) continue;
      return invalid_argument("input ", i, " is missing");
    }
    if (!ctx.input_value(i).is_tensor())
      return invalid_argument("input ", i, " must be a tensor, got ", ctx.input_value(i).describe());
  }
  return Status::Ok();
}

Status check_same_dtype(const KernelContext& ctx) {
  const DataType t = ctx.input(0).dtype();
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    if (ctx.has_input(i) && ctx.input(i).dtype() != t)
      return invalid_argument("input ", i, " has type ", data_type_name(ctx.input(i).dtype()),
                              " but input 0 has type ", data_type_name(t));
  }
  return Status::Ok();
}

}  // namespace onyx
