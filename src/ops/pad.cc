// Pad: input 0's element type and rank; dim d grows by pads[d] + pads[d + rank] (pads are the
// 'paddings' attribute at opset 1, 'pads' before 11, constant input 1 from 11, covering only
// the constant 'axes' input 3 from opset 18 when given). Unknown pads leave the dims unknown.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_pad(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  if (!in.has_rank) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const int64_t rank = int64_t(in.dims.size());
  std::optional<std::vector<int64_t>> given, axes;
  if (ctx.opset() < 11) {
    const char* name = ctx.opset() < 2 ? "paddings" : "pads";
    if (ctx.has_attr(name)) given = ctx.attr_ints(name);
  } else {
    given = constant_ints(ctx, 1);
  }
  if (ctx.opset() >= 11 && ctx.has_input(3)) {
    axes = constant_ints(ctx, 3);
    if (!axes) {
      ctx.set_output(0, elem, unknown_dims(rank));
      return Status::Ok();
    }
    if (!normalize_axes(*axes, rank)) return invalid_model("Pad: axes out of range or repeated for rank ", rank);
  } else {
    axes = std::vector<int64_t>();
    for (int64_t d = 0; d < rank; ++d) axes->push_back(d);
  }
  SymbolicShape out = in;
  const size_t k = axes->size();
  if (!given) {
    for (int64_t a : *axes) out.dims[size_t(a)] = Dim{};
  } else {
    if (given->size() != 2 * k) return invalid_model("Pad: pads has ", given->size(), " entries, expected ", 2 * k);
    for (size_t i = 0; i < k; ++i) {
      Dim& d = out.dims[size_t((*axes)[i])];
      int64_t total = 0;  // pads at both ends; hostile values may overflow
      d = __builtin_add_overflow((*given)[i], (*given)[i + k], &total) ? Dim{} : dim_plus(d, total);
      if (d.value && *d.value < 0) return invalid_model("Pad: pads shrink dim ", (*axes)[i], " below zero");
    }
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Pad", 1, 1000, infer_pad);

}  // namespace onyx::ops
