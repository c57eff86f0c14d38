// Squeeze: input 0's element type and dims without the listed axes ('axes' attribute before
// opset 13, constant input 1 from 13), or without every size-1 dim when no axes are given
// (then the rank is known only when every dim is). Non-constant axes leave the shape unknown.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_squeeze(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  std::optional<std::vector<int64_t>> axes;
  if (ctx.opset() >= 13) {
    if (ctx.has_input(1)) {
      axes = constant_ints(ctx, 1);
      if (!axes) {
        ctx.set_output(0, elem, {});
        return Status::Ok();
      }
    }
  } else if (ctx.has_attr("axes")) {
    axes = ctx.attr_ints("axes");
  }
  if (!in.has_rank) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const int64_t rank = int64_t(in.dims.size());
  std::vector<bool> drop(in.dims.size(), false);
  if (axes) {
    if (!normalize_axes(*axes, rank)) return invalid_model("Squeeze: axes out of range or repeated for rank ", rank);
    for (int64_t a : *axes) {
      const Dim& d = in.dims[size_t(a)];
      if (d.value && *d.value != 1) return invalid_model("Squeeze: dim ", a, " is ", *d.value, ", not 1");
      drop[size_t(a)] = true;
    }
  } else {
    for (size_t d = 0; d < in.dims.size(); ++d) {
      if (!in.dims[d].value) {  // might be 1: the rank is unknown
        ctx.set_output(0, elem, {});
        return Status::Ok();
      }
      drop[d] = *in.dims[d].value == 1;
    }
  }
  SymbolicShape out = unknown_dims(0);
  for (size_t d = 0; d < in.dims.size(); ++d)
    if (!drop[d]) out.dims.push_back(in.dims[d]);
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Squeeze", 1, 1000, infer_squeeze);

}  // namespace onyx::ops
