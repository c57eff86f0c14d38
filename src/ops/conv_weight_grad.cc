// ConvWeightGrad (ai.onyx.training): X's element type and shape [M, C / group, kernel_shape...]
// (M from dY's dim 1, C from X's).
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_conv_weight_grad(InferenceContext& ctx) {
  const SymbolicShape& x = ctx.input_shape(0);
  const SymbolicShape& dy = ctx.input_shape(1);
  const std::vector<int64_t> kernel = ctx.attr_ints("kernel_shape");
  const int64_t group = ctx.attr_int("group", 1);
  SymbolicShape out;
  out.has_rank = true;
  out.dims.push_back(dy.has_rank && dy.dims.size() > 1 ? dy.dims[1] : Dim{});
  Dim c;
  if (x.has_rank && x.dims.size() > 1 && x.dims[1].value && group > 0) c = known_dim(*x.dims[1].value / group);
  out.dims.push_back(c);
  for (int64_t k : kernel) out.dims.push_back(known_dim(k));
  ctx.set_output(0, ctx.input_elem_type(0), std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "ConvWeightGrad", 1, 1000, infer_conv_weight_grad);

}  // namespace onyx::ops
