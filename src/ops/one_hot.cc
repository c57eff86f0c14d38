// OneHot: values' element type; indices' shape with a dim of size depth inserted at 'axis'
// (default -1, counting over the output's rank). depth is known when input 1 is constant.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_one_hot(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(2);
  const SymbolicShape indices = ctx.input_shape(0);
  if (!indices.has_rank) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  Dim depth;
  if (const Tensor* t = ctx.constant_input(1); t && t->numel() == 1 && t->dtype() != DataType::kString) {
    const double d = t->get_double(0);
    if (d >= 1 && d < double(int64_t(1) << 40)) depth = known_dim(int64_t(d));
  }
  const int64_t rank = int64_t(indices.dims.size()) + 1;
  int64_t axis = ctx.attr_int("axis", -1);
  if (!normalize_axis(axis, rank)) return invalid_model("OneHot: axis ", axis, " is out of range for rank ", rank);
  SymbolicShape out = indices;
  out.dims.insert(out.dims.begin() + axis, depth);
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "OneHot", 1, 1000, infer_one_hot);

}  // namespace onyx::ops
