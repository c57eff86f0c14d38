// Compress: input 0's element type. Without 'axis': 1-D; with it: the input's dims, the axis
// dim being the number of selected entries. That count is known when the condition is
// constant (its true entries), unknown otherwise.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_compress(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  Dim kept;
  if (const Tensor* c = ctx.constant_input(1); c && c->dtype() == DataType::kBool && c->rank() == 1) {
    int64_t n = 0;
    for (int64_t i = 0; i < c->numel(); ++i) n += c->data<bool>()[i] ? 1 : 0;
    kept = known_dim(n);
  }
  if (!ctx.has_attr("axis")) {
    ctx.set_output(0, elem, SymbolicShape{true, {kept}});
    return Status::Ok();
  }
  SymbolicShape out = ctx.input_shape(0);
  if (out.has_rank) {
    int64_t axis = ctx.attr_int("axis", 0);
    const int64_t rank = int64_t(out.dims.size());
    if (!normalize_axis(axis, rank)) return invalid_model("Compress: axis ", axis, " is out of range for rank ", rank);
    out.dims[size_t(axis)] = kept;
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Compress", 1, 1000, infer_compress);

}  // namespace onyx::ops
