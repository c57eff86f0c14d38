// TopK: Values (X's element type) and Indices (int64), both X's dims with the 'axis' dim
// (default -1) replaced by K ('k' attribute before opset 10, constant input 1 from 10;
// unknown when not constant).
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_top_k(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  SymbolicShape out = ctx.input_shape(0);
  if (out.has_rank) {
    const int64_t rank = int64_t(out.dims.size());
    int64_t axis = ctx.attr_int("axis", -1);
    if (!normalize_axis(axis, rank)) return invalid_model("TopK: axis ", axis, " is out of range for rank ", rank);
    std::optional<int64_t> k;
    if (ctx.opset() < 10) {
      if (ctx.has_attr("k")) k = ctx.attr_int("k", 0);
    } else if (std::optional<std::vector<int64_t>> v = constant_ints(ctx, 1); v && v->size() == 1) {
      k = (*v)[0];
    }
    Dim& d = out.dims[size_t(axis)];
    if (k && (*k < 0 || (d.value && *k > *d.value)))
      return invalid_model("TopK: K=", *k, " is out of range for dim ", d.to_string());
    d = k ? known_dim(*k) : Dim{};
  }
  ctx.set_output(0, elem, out);
  ctx.set_output(1, DataType::kInt64, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "TopK", 1, 1000, infer_top_k);

}  // namespace onyx::ops
