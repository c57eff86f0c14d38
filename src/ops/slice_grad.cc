// SliceGrad (ai.onyx.training): the gradient of Slice's data, inputs (dY, shape of X, starts,
// ends[, axes[, steps]]): dY's element type, X's shape where that input is known at load (its
// rank where only its length is).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_slice_grad(InferenceContext& ctx) {
  SymbolicShape out;
  if (const Tensor* shape = ctx.constant_input(1); shape && shape->dtype() == DataType::kInt64 && shape->rank() == 1) {
    out.has_rank = true;
    for (int64_t i = 0; i < shape->numel(); ++i) {
      const int64_t d = shape->data<int64_t>()[i];
      out.dims.push_back(d >= 0 && d <= (int64_t(1) << 62) ? Dim{d, "", ""} : Dim{});  // out of range: unknown
    }
  } else if (SymbolicShape s = ctx.input_shape(1); s.has_rank && s.dims.size() == 1 && s.dims[0].value) {
    out = unknown_dims(*s.dims[0].value);
  }
  ctx.set_output(0, ctx.input_elem_type(0), out);
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "SliceGrad", 1, 1000, infer_slice_grad);

}  // namespace onyx::ops
